/** The shapes every extractor produces; shared by the main thread and the extraction worker. */

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
