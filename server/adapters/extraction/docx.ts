import mammoth from 'mammoth';
import { ExtractionError } from '../../domain/knowledge/extraction-error.js';
import { htmlDocument } from './html.js';
import type { ExtractedDocument } from '../../domain/knowledge/documents.js';

/**
 * Word styles -> HTML headings. mammoth's defaults match the English style *names*; documents
 * without a styles part, or written in another language, still carry the English style *ids*.
 */
const STYLE_MAP = [
  ...[1, 2, 3, 4, 5, 6].map((n) => `p.Heading${n} => h${n}:fresh`),
  ...[1, 2, 3, 4, 5, 6].map((n) => `p[style-name='heading ${n}'] => h${n}:fresh`),
  'p.Title => h1:fresh',
  "p[style-name='Title'] => h1:fresh",
];

/** DOCX -> HTML with mammoth (images left out), then the same section walk as web pages, without Readability. */
export async function docxDocument(
  bytes: Uint8Array,
  options: { filename?: string; maxChars: number },
): Promise<ExtractedDocument> {
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      {
        styleMap: STYLE_MAP,
        // Embedding every image as base64 costs memory and time and gives no text.
        convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
      },
    );
    html = result.value;
  } catch (e) {
    const message = (e as Error)?.message ?? String(e);
    throw new ExtractionError('MALFORMED', `The DOCX could not be read: ${message}`, { cause: e });
  }
  // HTML markup is roughly twice the text; a cheap early stop before building a DOM for it.
  if (html.length > options.maxChars * 4) {
    throw new ExtractionError('TOO_LARGE', `The DOCX holds more than ${options.maxChars} characters of text`);
  }
  return htmlDocument(html, { kind: 'docx', filename: options.filename, readability: false });
}
