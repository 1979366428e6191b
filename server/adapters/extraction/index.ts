/**
 * Bytes -> ExtractedDocument. The untrusted binary and markup formats (PDF, DOCX, HTML) are
 * parsed in a worker thread with a heap limit and a time limit; the text formats (Markdown,
 * plain text, CSV, YouTube timedtext) are parsed here by linear, regex-light code.
 */
import { parseTimedText, transcriptDocument } from '../youtube.js';
import { csvDocument } from './csv.js';
import { charsetFrom, decodeText } from './decode.js';
import { ExtractionError } from '../../domain/knowledge/extraction-error.js';
import { markdownDocument } from './markdown.js';
import { textDocument } from './text.js';
import {
  DEFAULT_LIMITS,
  DOCUMENT_KINDS,
  type DocumentKind,
  type ExtractedDocument,
  type ExtractInput,
  type ExtractLimits,
  type Extractor,
} from '../../domain/knowledge/documents.js';
import { detectKind } from './detect.js';
import { runInWorker } from './worker-pool.js';
import type { TaskInput } from './worker-tasks.js';

export { detectKind };
export {
  ExtractionError,
  isExtractionError,
  type ExtractionErrorCode,
} from '../../domain/knowledge/extraction-error.js';
export { parseCsv } from './csv.js';
export {
  runInWorker,
  configureExtractionWorkers,
  closeExtractionWorkers,
  type WorkerTask,
  type WorkerLimits,
} from './worker-pool.js';
export type {
  DocumentKind,
  ExtractedDocument,
  ExtractInput,
  ExtractLimits,
  Section,
} from '../../domain/knowledge/documents.js';
export { DEFAULT_LIMITS, DOCUMENT_KINDS } from '../../domain/knowledge/documents.js';

const TASKS = new URL('./worker-tasks.ts', import.meta.url).href;
const IN_WORKER: Partial<Record<DocumentKind, 'pdf' | 'docx' | 'html'>> = { pdf: 'pdf', docx: 'docx', html: 'html' };

function textLength(doc: ExtractedDocument): number {
  let n = 0;
  for (const s of doc.sections) n += s.text.length;
  return n;
}

/**
 * Extracts a document of a known kind (see detectKind). Throws ExtractionError:
 * UNSUPPORTED (unknown kind, password-protected or scanned PDF), TIMEOUT (the worker was stopped at
 * limits.timeoutMs), TOO_LARGE (more text than limits.maxChars, or the worker ran out of its
 * limits.maxMemoryMb heap), MALFORMED (the parser failed or crashed on the bytes).
 */
export async function extract(input: ExtractInput, limits: ExtractLimits = {}): Promise<ExtractedDocument> {
  const { timeoutMs, maxMemoryMb, maxChars } = { ...DEFAULT_LIMITS, ...limits };
  if (!DOCUMENT_KINDS.includes(input.kind))
    throw new ExtractionError('UNSUPPORTED', `Documents of kind "${String(input.kind)}" cannot be read`);
  const bytes = input.bytes;

  const task = IN_WORKER[input.kind];
  if (task) {
    const args: TaskInput = {
      // A copy the worker owns; Buffers may be views into Node's shared pool.
      bytes: new Uint8Array(bytes),
      url: input.url,
      filename: input.filename,
      contentType: input.contentType,
      maxChars,
    };
    return runInWorker<ExtractedDocument>({ module: TASKS, fn: task, args: [args] }, { timeoutMs, maxMemoryMb });
  }

  // A UTF-8 character is at most 4 bytes: past this the text is surely too long.
  if (bytes.length > maxChars * 4)
    throw new ExtractionError('TOO_LARGE', `The file is larger than ${maxChars * 4} bytes of text`);
  const text = decodeText(bytes, charsetFrom(input.contentType));
  if (text.length > maxChars)
    throw new ExtractionError(
      'TOO_LARGE',
      `The file holds ${text.length} characters; at most ${maxChars} are accepted`,
    );
  let doc: ExtractedDocument;
  switch (input.kind) {
    case 'markdown':
      doc = markdownDocument(text, input.filename);
      break;
    case 'csv':
      doc = csvDocument(text, input.filename);
      break;
    case 'youtube': {
      const cues = parseTimedText(text);
      if (cues.length === 0 && text.trim())
        throw new ExtractionError('MALFORMED', 'The captions track holds no timed text');
      doc = transcriptDocument(input.title ?? '', cues);
      break;
    }
    default:
      doc = textDocument(text, input.filename, input.title);
  }
  if (textLength(doc) > maxChars)
    throw new ExtractionError('TOO_LARGE', `The document holds more than ${maxChars} characters of text`);
  return doc;
}

/** The Extractor port the ingest runner hands its item handlers (ItemContext.extractor). */
export const extractor: Extractor = { extract, detectKind };
