/**
 * What the extraction worker runs: the parsers of untrusted formats. Each takes the raw bytes
 * and returns a plain ExtractedDocument (structured-cloned back to the caller).
 */
import { charsetFrom, decodeText } from './decode.js';
import { docxDocument } from './docx.js';
import { ExtractionError } from '../../domain/knowledge/extraction-error.js';
import { htmlDocument } from './html.js';
import { pdfDocument } from './pdf.js';
import type { ExtractedDocument } from '../../domain/knowledge/documents.js';

export interface TaskInput {
  bytes: Uint8Array;
  url?: string;
  filename?: string;
  contentType?: string;
  maxChars: number;
}

export function textLength(doc: ExtractedDocument): number {
  let n = 0;
  for (const s of doc.sections) n += s.text.length;
  return n;
}

function checkSize(doc: ExtractedDocument, maxChars: number): ExtractedDocument {
  const n = textLength(doc);
  if (n > maxChars)
    throw new ExtractionError(
      'TOO_LARGE',
      `The document holds ${n} characters of text; at most ${maxChars} are accepted`,
    );
  return doc;
}

export async function pdf(input: TaskInput): Promise<ExtractedDocument> {
  return checkSize(
    await pdfDocument(input.bytes, { filename: input.filename, maxChars: input.maxChars }),
    input.maxChars,
  );
}

export async function docx(input: TaskInput): Promise<ExtractedDocument> {
  return checkSize(
    await docxDocument(input.bytes, { filename: input.filename, maxChars: input.maxChars }),
    input.maxChars,
  );
}

export function html(input: TaskInput): ExtractedDocument {
  const source = decodeText(input.bytes, charsetFrom(input.contentType));
  return checkSize(htmlDocument(source, { url: input.url, filename: input.filename }), input.maxChars);
}
