import { baseTitle } from './decode.js';
import type { ExtractedDocument, Section } from '../../domain/knowledge/documents.js';

/**
 * RFC 4180 parsing, lenient where real files are: CRLF, LF or CR record ends; fields in double
 * quotes may hold delimiters, line breaks and "" for a quote; a quote inside an unquoted field is
 * kept as a character; an unterminated quoted field runs to the end of the input. One pass,
 * no regular expressions, so hostile input costs linear time.
 */
export function parseCsv(text: string, delimiter = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  const n = text.length;
  let quoted = false; // inside a quoted field
  let fieldStarted = false; // something (even "") was read for this field
  while (i < n) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      // Copy the run up to the next quote in one step.
      const next = text.indexOf('"', i);
      const end = next === -1 ? n : next;
      field += text.slice(i, end);
      i = end;
      continue;
    }
    if (c === delimiter) {
      row.push(field);
      field = '';
      fieldStarted = false;
      i++;
      continue;
    }
    if (c === '\r' || c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      fieldStarted = false;
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
      continue;
    }
    if (c === '"' && !fieldStarted && field.length === 0) {
      quoted = true;
      fieldStarted = true;
      i++;
      continue;
    }
    field += c;
    fieldStarted = true;
    i++;
  }
  if (fieldStarted || field.length > 0 || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  // Blank lines are not records.
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

const DELIMITERS = [',', ';', '\t', '|'] as const;

/** Counts each candidate delimiter outside quotes on the first lines; the one with a steady count > 0 wins. */
export function sniffDelimiter(text: string): string {
  const sample = text.slice(0, 16_384);
  let best = ',';
  let bestScore = 0;
  for (const d of DELIMITERS) {
    const rows = parseCsv(sample, d).slice(0, 20);
    if (rows.length === 0) continue;
    const width = rows[0].length;
    if (width < 2) continue;
    const steady = rows.filter((r) => r.length === width).length / rows.length;
    const score = steady * width;
    if (score > bestScore) {
      bestScore = score;
      best = d;
    }
  }
  return best;
}

/**
 * True when the text reads as a table: at least two records (three when nothing hints at CSV),
 * at least two columns, the same width on nearly every sampled record, and short header names.
 */
export function looksLikeCsv(text: string, hinted: boolean): boolean {
  let sample = text.slice(0, 32_768);
  if (sample.length < text.length) sample = sample.slice(0, Math.max(sample.lastIndexOf('\n'), 0));
  const delimiter = sniffDelimiter(sample);
  const rows = parseCsv(sample, delimiter).slice(0, 50);
  if (rows.length < (hinted ? 2 : 3)) return false;
  const width = rows[0].length;
  if (width < 2) return false;
  const steady = rows.filter((r) => r.length === width).length / rows.length;
  if (steady < 0.9) return false;
  return hinted || rows[0].every((h) => h.trim().length <= 64 && !h.includes('\n'));
}

/** Rows per section: small enough that a section is a few chunks, large enough to keep related rows together. */
const ROWS_PER_SECTION = 25;

/**
 * Each data row becomes one paragraph "header: value; header: value" (empty cells left out) so a
 * row is self-describing wherever the chunker cuts; rows are grouped into sections of 25.
 */
export function csvDocument(text: string, filename?: string): ExtractedDocument {
  const delimiter = sniffDelimiter(text);
  const rows = parseCsv(text, delimiter);
  const header = (rows[0] ?? []).map((h, i) => h.replace(/\s+/g, ' ').trim() || `Column ${i + 1}`);
  const lines: string[] = [];
  for (const r of rows.slice(1)) {
    const parts: string[] = [];
    r.forEach((value, i) => {
      const v = value.replace(/\s+/g, ' ').trim();
      if (v) parts.push(`${header[i] ?? `Column ${i + 1}`}: ${v}`);
    });
    if (parts.length) lines.push(parts.join('; '));
  }
  // A header-only file still says something: keep the column names.
  if (lines.length === 0 && header.length) lines.push(header.join('; '));
  const sections: Section[] = [];
  for (let i = 0; i < lines.length; i += ROWS_PER_SECTION) {
    sections.push({ headingPath: [], text: lines.slice(i, i + ROWS_PER_SECTION).join('\n\n') });
  }
  return { kind: 'csv', title: baseTitle(filename) ?? 'Table', sections };
}
