import { fileTypeFromBuffer } from 'file-type';
import { looksLikeCsv } from './csv.js';
import { bomEncoding, charsetFrom, decodeText } from './decode.js';
import type { DocumentKind } from '../../domain/knowledge/documents.js';

const SAMPLE_BYTES = 65_536;

/** `%PDF-` at the start of a line in the first KB: pdf.js (like Acrobat) accepts junk before the header. */
function isPdf(bytes: Buffer): boolean {
  const head = bytes.subarray(0, 1024);
  let at = head.indexOf('%PDF-', 0, 'latin1');
  while (at !== -1) {
    if (at === 0 || head[at - 1] === 0x0a || head[at - 1] === 0x0d) return true;
    at = head.indexOf('%PDF-', at + 1, 'latin1');
  }
  return false;
}

/**
 * Text or binary, judged on the decoded sample: no NUL, and control characters (other than tab,
 * line ends, form feed, escape) under 2 %. UTF-16 with a BOM is text too.
 */
function isText(sample: Buffer): boolean {
  if (sample.length === 0) return false;
  const bom = bomEncoding(sample);
  const text = bom && bom.encoding !== 'utf-8' ? decodeText(sample) : null;
  if (text === null && sample.includes(0)) return false;
  const s = text ?? decodeText(sample);
  let control = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) return false;
    if ((c < 0x20 && c !== 9 && c !== 10 && c !== 13 && c !== 12 && c !== 27) || c === 0xfffd) control++;
  }
  return control / s.length < 0.02;
}

/** Strips what may precede the first tag: whitespace, an XML declaration, comments, a BOM. */
function leadingMarkup(text: string): string {
  let s = text.replace(/^\uFEFF/, '').trimStart();
  for (let guard = 0; guard < 20; guard++) {
    if (s.startsWith('<?xml')) {
      const end = s.indexOf('?>');
      if (end === -1) return s;
      s = s.slice(end + 2).trimStart();
    } else if (s.startsWith('<!--')) {
      const end = s.indexOf('-->');
      if (end === -1) return s;
      s = s.slice(end + 3).trimStart();
    } else break;
  }
  return s;
}

type HtmlSignal = 'strong' | 'weak' | 'xml' | null;

/** The WHATWG MIME-sniffing patterns for HTML, split by how sure they make us. */
function htmlSignal(text: string): HtmlSignal {
  const raw = text.replace(/^\uFEFF/, '').trimStart();
  const s = leadingMarkup(raw).slice(0, 256).toLowerCase();
  if (/^<!doctype\s+html[\s>]/.test(s) || /^<(html|head|body)[\s>]/.test(s)) return 'strong';
  if (/^<!doctype\s/.test(s) || /^<[a-z][\w:-]*[^>]*\sxmlns(:\w+)?=/.test(s) || raw.startsWith('<?xml')) return 'xml';
  if (
    /^<(script|iframe|h[1-6]|div|font|table|a|style|title|b|br|p|section|article|main|header|nav|meta|link)[\s>/]/.test(
      s,
    )
  )
    return 'weak';
  if (raw.startsWith('<!--')) return 'weak';
  return null;
}

const MARKDOWN_EXT = /\.(md|markdown|mdown|mkd|mkdn|mdwn|mdx)$/i;
const CSV_EXT = /\.(csv|tsv)$/i;
const TEXT_EXT = /\.(txt|text|log)$/i;

type TextHint = 'markdown' | 'csv' | 'text' | null;

function textHint(hints: { filename?: string; contentType?: string } | undefined): TextHint {
  const name = hints?.filename ?? '';
  const type = (hints?.contentType ?? '').split(';')[0].trim().toLowerCase();
  if (MARKDOWN_EXT.test(name) || type === 'text/markdown' || type === 'text/x-markdown') return 'markdown';
  if (CSV_EXT.test(name) || type === 'text/csv' || type === 'text/tab-separated-values' || type === 'application/csv')
    return 'csv';
  if (TEXT_EXT.test(name) || type === 'text/plain') return 'text';
  return null;
}

/** Markdown constructs that plain prose rarely has; a heading or fence plus one more, or three of any. */
export function looksLikeMarkdown(text: string): boolean {
  const lines = text.slice(0, 32_768).split(/\r?\n/, 400);
  let heading = 0;
  let fence = 0;
  let other = 0;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (/^ {0,3}#{1,6}[ \t]+\S/.test(l)) heading++;
    else if (/^ {0,3}(```|~~~)/.test(l)) fence++;
    else if (i > 0 && lines[i - 1].trim() && /^ {0,3}(=+|-{2,})[ \t]*$/.test(l)) heading++;
    else if (/^ {0,3}([-*+]|\d{1,9}[.)])[ \t]+\S/.test(l) || /^ {0,3}>[ \t]?\S/.test(l)) other++;
    if (
      /\[[^\]\n]{1,200}\]\([^)\s]{1,500}\)/.test(l) ||
      /(\*\*|__)[^*_\n]{1,200}\1/.test(l) ||
      /`[^`\n]{1,200}`/.test(l)
    )
      other++;
  }
  return (heading + fence > 0 && heading + fence + other >= 2) || heading + fence + other >= 3;
}

/**
 * Decides the kind by content: magic bytes first (PDF; DOCX inside a ZIP), then text sniffing
 * (HTML by its leading markup, CSV by a steady column count, Markdown by its constructs).
 * The filename/content-type only break ties between text formats: a `.md` name makes text
 * Markdown, a `.csv` name makes text that parses as a table CSV, `.txt` keeps it plain text.
 * Returns null for anything else: empty input, images, ZIPs that are not DOCX, other office
 * files, executables, XML that is not XHTML, binary.
 * Never returns 'youtube': transcripts are fetched, not uploaded.
 */
export async function detectKind(
  bytes: Buffer,
  hints?: { filename?: string; contentType?: string },
): Promise<DocumentKind | null> {
  if (!bytes || bytes.length === 0) return null;
  if (isPdf(bytes)) return 'pdf';
  const sample = bytes.subarray(0, SAMPLE_BYTES);
  // file-type knows ZIP containers (it looks at the entry names); only DOCX is ours.
  if (
    bytes.length >= 4 &&
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    (bytes[2] === 3 || bytes[2] === 5 || bytes[2] === 7)
  ) {
    const type = await fileTypeFromBuffer(bytes).catch(() => undefined);
    return type?.ext === 'docx' ? 'docx' : null;
  }
  if (!isText(sample)) return null;

  let text = decodeText(sample, charsetFrom(hints?.contentType));
  // A sample cut mid-way may end in half a character or half a record: drop the last line.
  if (sample.length < bytes.length) text = text.slice(0, Math.max(text.lastIndexOf('\n'), 0)) || text;
  if (!text.trim()) return 'text';

  const hint = textHint(hints);
  const html = htmlSignal(text);
  if (html === 'strong') return 'html';
  if (html === 'xml') return null;
  if (html === 'weak' && hint !== 'markdown') return 'html';

  if (hint === 'markdown') return 'markdown';
  if (hint === 'csv') return looksLikeCsv(text, true) ? 'csv' : 'text';
  if (hint === 'text') return 'text';
  if (looksLikeCsv(text, false)) return 'csv';
  if (looksLikeMarkdown(text)) return 'markdown';
  return 'text';
}
