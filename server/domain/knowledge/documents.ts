/**
 * The documents ingestion indexes: the shapes every extractor produces (shared by the main thread
 * and the extraction worker) and the Extractor port item handlers read bytes through
 * (implemented by server/adapters/extraction/).
 */

export type DocumentKind = 'html' | 'pdf' | 'docx' | 'markdown' | 'text' | 'csv' | 'youtube';

export const DOCUMENT_KINDS: readonly DocumentKind[] = ['html', 'pdf', 'docx', 'markdown', 'text', 'csv', 'youtube'];

/** A run of text under one heading path; the chunker never lets a chunk straddle two of them (unless tiny). */
export interface Section {
  /** Headings from the outermost to the innermost, e.g. ['Guide', 'Install']; [] before the first heading. */
  headingPath: string[];
  /** Paragraphs separated by a blank line ("\n\n"); whitespace inside a paragraph is collapsed except in code. */
  text: string;
  /** 1-based PDF page the text is on (a section never spans two pages). */
  page?: number;
  /** YouTube: where this part of the transcript starts. */
  startSeconds?: number;
}

export interface ExtractedDocument {
  kind: DocumentKind;
  title: string;
  /** BCP 47 tag when the document declares one (html lang, PDF /Lang, front matter). */
  language?: string;
  sections: Section[];
  /** HTML: the absolute <link rel=canonical>. */
  canonicalUrl?: string;
  /** HTML: absolute http(s) links found in the whole page (fragment removed, deduplicated, not the page itself). */
  links?: string[];
}

export interface ExtractLimits {
  /** Wall-clock budget of one extraction in the worker; the worker is terminated when it runs out. Default 30 s. */
  timeoutMs?: number;
  /** V8 old-generation heap of the worker (resourceLimits.maxOldGenerationSizeMb). Default 256. */
  maxMemoryMb?: number;
  /** Largest amount of extracted text accepted (sum of section texts). Default 5,000,000. */
  maxChars?: number;
}

export const DEFAULT_LIMITS: Required<ExtractLimits> = {
  timeoutMs: 30_000,
  maxMemoryMb: 256,
  maxChars: 5_000_000,
};

export interface ExtractInput {
  bytes: Buffer;
  kind: DocumentKind;
  /** Where the bytes came from: resolves relative links and the canonical URL of HTML. */
  url?: string;
  /** Upload name: a title when the document has none. */
  filename?: string;
  /** Response Content-Type: its charset decodes text when the bytes are not UTF-8. */
  contentType?: string;
  /** YouTube: the video title (from captionTrackUrl); the bytes are the timedtext payload. */
  title?: string;
}

/** Bytes -> document. Failures are ExtractionError (extraction-error.ts). */
export interface Extractor {
  /** A document of a known kind; throws ExtractionError (UNSUPPORTED, TIMEOUT, TOO_LARGE, MALFORMED). */
  extract(input: ExtractInput, limits?: ExtractLimits): Promise<ExtractedDocument>;
  /** The kind the bytes are (their content first, then the hints), or null when none is readable. */
  detectKind(bytes: Buffer, hints?: { filename?: string; contentType?: string }): Promise<DocumentKind | null>;
}
