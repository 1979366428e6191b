export type ExtractionErrorCode = 'UNSUPPORTED' | 'TIMEOUT' | 'TOO_LARGE' | 'MALFORMED';

const HINTS: Record<ExtractionErrorCode, string> = {
  UNSUPPORTED: 'Upload a PDF, DOCX, HTML, Markdown, CSV or plain-text file',
  TIMEOUT: 'The file took too long to read; split it into smaller files or export it again',
  TOO_LARGE: 'The file holds more text than allowed; split it into smaller files',
  MALFORMED: 'The file could not be read; check that it opens in its usual application, or export it again',
};

/**
 * Why a document could not be turned into text. Ingestion records the code per URL/file; the
 * HTTP layer maps it to its own error codes. The message names the cause, the hint the next step.
 */
export class ExtractionError extends Error {
  override readonly name = 'ExtractionError';
  readonly hint: string;
  constructor(
    readonly code: ExtractionErrorCode,
    message: string,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.hint = options.hint ?? HINTS[code];
  }
}

export const isExtractionError = (e: unknown): e is ExtractionError => e instanceof ExtractionError;
