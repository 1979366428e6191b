import { getDocumentProxy } from 'unpdf';
import { baseTitle, collapseSpaces } from './decode.js';
import { ExtractionError } from '../../domain/knowledge/extraction-error.js';
import type { ExtractedDocument, Section } from '../../domain/knowledge/documents.js';

interface Line {
  text: string;
  /** Character-weighted font size of the line. */
  size: number;
  y: number;
  /** Gap to the previous line on the page, in multiples of this line's size (Infinity for the first). */
  gapBefore: number;
  /** In the top or bottom tenth of the page, where running heads, feet and page numbers live. */
  margin: boolean;
}

interface RawItem {
  str: string;
  transform: number[];
  width: number;
  hasEOL: boolean;
}

const isItem = (item: unknown): item is RawItem =>
  typeof (item as RawItem).str === 'string' && Array.isArray((item as RawItem).transform);

/** pdf.js text items -> visual lines: a new line at an end-of-line mark or a baseline change. */
function pageLines(items: unknown[], view: number[]): Line[] {
  const [, bottom, , top] = view.length === 4 ? view : [0, 0, 0, 792];
  const band = Math.abs(top - bottom) * 0.1;
  const lines: Line[] = [];
  let text = '';
  let weighted = 0;
  let chars = 0;
  let y = NaN;
  let lastEnd = NaN;
  let lastY = NaN;
  let lastSize = 0;
  const end = () => {
    const t = collapseSpaces(text);
    if (t) {
      const size = chars ? weighted / chars : lastSize;
      const gap = lines.length ? Math.abs(lines[lines.length - 1].y - y) / Math.max(size, 1) : Infinity;
      lines.push({
        text: t,
        size: Math.round(size * 2) / 2,
        y,
        gapBefore: gap,
        margin: y > top - band || y < bottom + band,
      });
    }
    text = '';
    weighted = 0;
    chars = 0;
    y = NaN;
    lastEnd = NaN;
  };
  for (const item of items) {
    if (!isItem(item)) continue;
    const [, , c, d, x, iy] = item.transform;
    const size = Math.hypot(c, d) || lastSize || 10;
    if (text && !Number.isNaN(lastY) && Math.abs(iy - lastY) > size * 0.6) end();
    if (Number.isNaN(y)) y = iy;
    // Items placed apart on one line without a space between them are separate words.
    if (text && !/\s$/.test(text) && !/^\s/.test(item.str) && x - lastEnd > size * 0.2) text += ' ';
    text += item.str;
    const n = item.str.trim().length;
    weighted += size * n;
    chars += n;
    lastEnd = x + item.width;
    lastY = iy;
    lastSize = size;
    if (item.hasEOL) end();
  }
  end();
  return lines;
}

/** Page numbers and running heads/feet: lines repeated (digits ignored) at the top or bottom of most pages. */
function furnitureKeys(pages: Line[][], bodySize: number): Set<string> {
  const counts = new Map<string, number>();
  for (const lines of pages) {
    const seen = new Set<string>();
    for (const line of lines) {
      if (!line.margin || line.size > bodySize * 1.15) continue;
      const key = line.text.replace(/\d+/g, '#');
      if (!seen.has(key)) counts.set(key, (counts.get(key) ?? 0) + 1);
      seen.add(key);
    }
  }
  const keys = new Set<string>();
  const needed = Math.max(3, Math.ceil(pages.length * 0.5));
  for (const [key, n] of counts) if (n >= needed) keys.add(key);
  return keys;
}

const isPageNumber = (t: string) =>
  /^(page\s+)?\d{1,5}(\s*(\/|of)\s*\d{1,5})?$/i.test(t) || /^[-–]\s*\d{1,5}\s*[-–]$/.test(t);

/**
 * Headings by type size: the size that carries most characters is the body; short lines set
 * clearly larger are headings, levelled by size (largest = 1, at most three levels). When a
 * quarter of the lines would be headings (slides, posters) sizes say nothing and none are used.
 */
function headingLevels(pages: Line[][]): { body: number; levelOf: (line: Line) => number } {
  const bySize = new Map<number, number>();
  let total = 0;
  for (const lines of pages)
    for (const l of lines) {
      bySize.set(l.size, (bySize.get(l.size) ?? 0) + l.text.length);
      total++;
    }
  let body = 0;
  let most = -1;
  for (const [size, n] of bySize) if (n > most) [body, most] = [size, n];
  const candidate = (l: Line) =>
    l.size >= body * 1.2 &&
    l.text.length <= 150 &&
    l.text.split(' ').length <= 20 &&
    /\p{L}/u.test(l.text) &&
    !/[.,;]$/.test(l.text);
  const sizes = new Set<number>();
  let count = 0;
  for (const lines of pages)
    for (const l of lines)
      if (candidate(l)) {
        sizes.add(l.size);
        count++;
      }
  if (count === 0 || count > total * 0.25) return { body, levelOf: () => 0 };
  const ranked = [...sizes].sort((a, b) => b - a);
  return { body, levelOf: (l) => (candidate(l) ? Math.min(ranked.indexOf(l.size) + 1, 3) : 0) };
}

/** Lines of one paragraph joined with spaces; a word hyphenated across a line end is joined again. */
function joinLines(lines: string[]): string {
  let out = lines[0];
  for (let i = 1; i < lines.length; i++) {
    out = /\p{L}-$/u.test(out) && /^\p{Ll}/u.test(lines[i]) ? out.slice(0, -1) + lines[i] : `${out} ${lines[i]}`;
  }
  return out;
}

function cleanTitle(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const t = collapseSpaces(raw.replace(/^Microsoft (Word|PowerPoint) - /i, ''));
  if (!t || /^untitled/i.test(t) || /\.(docx?|pdf|pptx?|odt|rtf)$/i.test(t)) return undefined;
  return t;
}

function pdfError(e: unknown): ExtractionError {
  if (e instanceof ExtractionError) return e;
  const name = (e as { name?: string })?.name;
  const message = (e as { message?: string })?.message ?? String(e);
  if (name === 'PasswordException') {
    return new ExtractionError('UNSUPPORTED', 'The PDF is protected by a password', {
      hint: 'Upload a copy without a password',
      cause: e,
    });
  }
  return new ExtractionError('MALFORMED', `The PDF could not be read: ${message}`, { cause: e });
}

/**
 * PDF -> document with one or more sections per page (a section never spans pages, so every
 * chunk knows its page). Headings are recovered from type sizes and carried across pages.
 */
export async function pdfDocument(
  bytes: Uint8Array,
  options: { filename?: string; maxChars: number },
): Promise<ExtractedDocument> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  try {
    pdf = await getDocumentProxy(bytes, {
      verbosity: 0,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
    });
    const pages: Line[][] = [];
    let chars = 0;
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      const lines = pageLines(content.items as unknown[], page.view);
      page.cleanup();
      for (const l of lines) chars += l.text.length;
      if (chars > options.maxChars) {
        throw new ExtractionError(
          'TOO_LARGE',
          `The PDF holds more than ${options.maxChars} characters of text (stopped at page ${n})`,
        );
      }
      pages.push(lines);
    }
    if (chars === 0 && pdf.numPages > 0) {
      throw new ExtractionError(
        'UNSUPPORTED',
        'The PDF has no text layer (scanned pages are images; text recognition is not supported)',
        {
          hint: 'Export the PDF from the original document, or run it through OCR first',
        },
      );
    }
    const meta = await pdf.getMetadata().catch(() => null);
    const info = (meta?.info ?? {}) as Record<string, unknown>;

    const { body, levelOf } = headingLevels(pages);
    const furniture = furnitureKeys(pages, body);
    const sections: Section[] = [];
    const path: { level: number; text: string }[] = [];
    let firstHeading: string | undefined;
    pages.forEach((lines, i) => {
      const page = i + 1;
      let paragraphs: string[] = [];
      let current: string[] = [];
      const flushParagraph = () => {
        if (current.length) paragraphs.push(joinLines(current));
        current = [];
      };
      const flushSection = () => {
        flushParagraph();
        if (paragraphs.length)
          sections.push({ headingPath: path.map((h) => h.text), text: paragraphs.join('\n\n'), page });
        paragraphs = [];
      };
      let previousHeading: { level: number; index: number } | null = null;
      lines.forEach((line, index) => {
        if (line.margin && (isPageNumber(line.text) || furniture.has(line.text.replace(/\d+/g, '#')))) return;
        const level = levelOf(line);
        if (level) {
          // A heading set on two lines continues the one just read.
          if (
            previousHeading &&
            previousHeading.level === level &&
            previousHeading.index === index - 1 &&
            line.gapBefore < 2
          ) {
            path[path.length - 1].text += ` ${line.text}`;
          } else {
            flushSection();
            while (path.length && path[path.length - 1].level >= level) path.pop();
            path.push({ level, text: line.text });
          }
          previousHeading = { level, index };
          firstHeading ??= path[0]?.text;
          return;
        }
        previousHeading = null;
        if (line.gapBefore > 1.6) flushParagraph();
        current.push(line.text);
      });
      flushSection();
    });
    const language = typeof info.Language === 'string' && info.Language ? info.Language : undefined;
    return {
      kind: 'pdf',
      title: cleanTitle(info.Title) ?? firstHeading ?? baseTitle(options.filename) ?? 'Untitled PDF',
      ...(language ? { language } : {}),
      sections,
    };
  } catch (e) {
    throw pdfError(e);
  } finally {
    await pdf?.destroy().catch(() => undefined);
  }
}
