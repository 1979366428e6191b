/** Bytes -> string for the text formats: BOM first, then strict UTF-8, then the declared charset, then windows-1252. */

const UTF8_BOM = [0xef, 0xbb, 0xbf];

export function bomEncoding(bytes: Uint8Array): { encoding: 'utf-8' | 'utf-16le' | 'utf-16be'; length: number } | null {
  if (bytes.length >= 3 && bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2]) {
    return { encoding: 'utf-8', length: 3 };
  }
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return null;
}

function tryDecode(bytes: Uint8Array, encoding: string, fatal: boolean): string | null {
  try {
    return new TextDecoder(encoding, { fatal, ignoreBOM: false }).decode(bytes);
  } catch {
    return null; // unknown label (RangeError) or invalid sequence (TypeError)
  }
}

/** The charset named by a Content-Type value or an HTML <meta>, if any. */
export function charsetFrom(contentType: string | undefined): string | undefined {
  const m = contentType ? /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType) : null;
  return m ? m[1].toLowerCase() : undefined;
}

/**
 * Decodes text the way a browser would for a document without a reliable label: a BOM wins,
 * valid UTF-8 is UTF-8 (it almost never happens by accident), otherwise the declared charset
 * (Content-Type or <meta charset> in the first 2 KB), otherwise windows-1252.
 */
export function decodeText(bytes: Uint8Array, declaredCharset?: string): string {
  const bom = bomEncoding(bytes);
  if (bom) return tryDecode(bytes.subarray(bom.length), bom.encoding, false) ?? '';
  const utf8 = tryDecode(bytes, 'utf-8', true);
  if (utf8 !== null) return utf8;
  const head = Buffer.from(bytes.subarray(0, 2048)).toString('latin1');
  const meta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1]?.toLowerCase();
  for (const label of [declaredCharset, meta]) {
    if (!label || label === 'utf-8' || label === 'utf8') continue;
    const text = tryDecode(bytes, label, false);
    if (text !== null) return text;
  }
  return tryDecode(bytes, 'windows-1252', false) ?? Buffer.from(bytes).toString('latin1');
}

/** Collapses runs of whitespace to one space (not across paragraphs: callers split first). */
export const collapseSpaces = (s: string): string => s.replace(/[\s\u00a0]+/g, ' ').trim();

/** Normalises line ends and trims trailing spaces; keeps blank lines (they separate paragraphs). */
export const normaliseNewlines = (s: string): string => s.replace(/\r\n?/g, '\n').replace(/[ \t]+$/gm, '');

/** Joins non-empty paragraphs with the one paragraph separator sections use. */
/** Filename without folders and extension, for titles of uploads. */
export function baseTitle(filename: string | undefined): string | undefined {
  if (!filename) return undefined;
  const base = filename.split(/[\\/]/).pop() ?? '';
  const stem = base
    .replace(/\.[A-Za-z0-9]{1,8}$/, '')
    .replace(/[_]+/g, ' ')
    .trim();
  return stem || undefined;
}
