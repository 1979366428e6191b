/**
 * Is a response an HTML page? The declared type decides, except that known binary signatures
 * always win (a PDF served as text/html is a PDF) and an absent or generic type
 * (application/octet-stream) is sniffed the way browsers do (WHATWG MIME sniffing, HTML patterns).
 */

const SNIFFABLE = new Set(['', 'application/octet-stream', 'unknown/unknown', 'application/unknown', '*/*']);

const startsWith = (b: Buffer, bytes: number[], at = 0) => bytes.every((x, i) => b[at + i] === x);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** Signatures of formats that are never HTML: documents, images, archives, media. */
function isKnownBinary(b: Buffer): boolean {
  return (
    startsWith(b, ascii('%PDF-')) ||
    startsWith(b, [0x89, 0x50, 0x4e, 0x47]) || // PNG
    startsWith(b, [0xff, 0xd8, 0xff]) || // JPEG
    startsWith(b, ascii('GIF8')) ||
    (startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8)) ||
    startsWith(b, [0x50, 0x4b, 0x03, 0x04]) || // ZIP, and so DOCX/XLSX/EPUB
    startsWith(b, [0x1f, 0x8b]) || // gzip
    startsWith(b, ascii('ftyp'), 4) || // MP4/MOV
    startsWith(b, ascii('OggS')) ||
    startsWith(b, ascii('ID3')) ||
    startsWith(b, [0x00, 0x61, 0x73, 0x6d]) // wasm
  );
}

/** A NUL in the first KiB means binary, unless the text is UTF-16 (marked by its BOM). */
function hasBinaryBytes(b: Buffer): boolean {
  if (startsWith(b, [0xff, 0xfe]) || startsWith(b, [0xfe, 0xff])) return false;
  return b.subarray(0, 1024).includes(0);
}

const HTML_START =
  /^<(?:!doctype\s+html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p)[\s>/]|^<!--/i;

function looksLikeHtml(b: Buffer): boolean {
  const start = startsWith(b, [0xef, 0xbb, 0xbf]) ? 3 : 0;
  const head = b
    .subarray(start, start + 1024)
    .toString('latin1')
    .trimStart();
  return HTML_START.test(head);
}

export function mimeOf(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

export function isHtmlResponse(contentType: string | null, body: Buffer): boolean {
  if (isKnownBinary(body) || hasBinaryBytes(body)) return false;
  const mime = mimeOf(contentType);
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return true;
  if (!SNIFFABLE.has(mime)) return false;
  return looksLikeHtml(body);
}
