import { baseTitle, collapseSpaces, normaliseNewlines } from './decode.js';
import type { ExtractedDocument } from '../../domain/knowledge/documents.js';

/**
 * Plain text -> one section of paragraphs (blank-line separated; lines inside a paragraph
 * keep their breaks). Titled by the file name, else by a short first line.
 */
export function textDocument(source: string, filename?: string, title?: string): ExtractedDocument {
  const paragraphs = normaliseNewlines(source.replace(/^\uFEFF/, ''))
    .split(/\n[ \t]*\n+/)
    .map((p) => p.replace(/^\n+|\s+$/g, ''))
    .filter((p) => p.trim());
  const firstLine = collapseSpaces(paragraphs[0]?.split('\n')[0] ?? '');
  return {
    kind: 'text',
    title:
      title ||
      baseTitle(filename) ||
      (firstLine.length <= 100 ? firstLine : `${firstLine.slice(0, 97)}…`) ||
      'Untitled',
    sections: paragraphs.length ? [{ headingPath: [], text: paragraphs.join('\n\n') }] : [],
  };
}
