/**
 * Leads as CSV (RFC 4180: quoted fields, CRLF rows). A cell a spreadsheet would read as a formula
 * (= + - @ tab, CR at the start) gets a leading apostrophe: a visitor's text must not run in Excel.
 */
export interface Lead {
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  customFields: Record<string, string | number>;
  source: string;
  threadId: string | null;
  createdAt: string;
}

const cell = (value: string | number | null | undefined) => {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export function leadsCsv(leads: Lead[]): string {
  const custom = [...new Set(leads.flatMap((l) => Object.keys(l.customFields)))].sort();
  const header = ['createdAt', 'name', 'email', 'phone', ...custom, 'source', 'conversationId', 'id'];
  const rows = leads.map((l) => [
    l.createdAt,
    l.name,
    l.email,
    l.phone,
    ...custom.map((k) => l.customFields[k]),
    l.source,
    l.threadId,
    l.id,
  ]);
  return [header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}
