import { describe, expect, it } from 'vitest';
import {
  chunkDocument,
  citationUrl,
  encodeTextDirective,
  estimateTokens,
  quoteAtStart,
  textFragmentUrl,
  type Chunk,
} from '../../../../server/domain/knowledge/chunk.js';
import type { ExtractedDocument, Section } from '../../../../server/adapters/extraction/index.js';
import { prose } from './fixtures.js';

const doc = (sections: Section[], kind: ExtractedDocument['kind'] = 'html'): ExtractedDocument => ({
  kind,
  title: 'T',
  sections,
});

/** Paragraphs of ~`words` words each. */
const paragraphs = (n: number, words: number, seed = 0) =>
  Array.from({ length: n }, (_, i) => prose(words, seed + i * 5)).join('\n\n');

function expectQuoteAtStart(c: Chunk) {
  const quote = decodeURIComponent(c.location.textFragment);
  expect(quote.length).toBeGreaterThan(0);
  expect(c.text.startsWith(quote)).toBe(true);
}

describe('estimateTokens', () => {
  it('uses the larger of 1.3 tokens per word and 4 characters per token, one per CJK character', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('one two three four five six seven eight nine ten')).toBe(13);
    expect(estimateTokens('https://example.com/a/very/long/path/with/segments?and=query')).toBe(15);
    expect(estimateTokens('東京都の天気')).toBe(6);
  });
});

describe('chunkDocument', () => {
  it('splits a long section into ~target chunks with overlap, never past 1.5x target', () => {
    const text = paragraphs(12, 90);
    const chunks = chunkDocument(doc([{ headingPath: ['Guide', 'Install'], text }]), {
      targetTokens: 200,
      overlapTokens: 40,
    });
    expect(chunks.length).toBeGreaterThan(4);
    for (const [i, c] of chunks.entries()) {
      expect(c.index).toBe(i);
      expect(c.tokenCount).toBeLessThanOrEqual(300);
      expect(c.tokenCount).toBe(estimateTokens(c.text));
      expect(c.headingPath).toEqual(['Guide', 'Install']);
      expect(text).toContain(c.text); // an exact slice of the document
      expectQuoteAtStart(c);
      if (i > 0) {
        // The start of each chunk repeats the end of the previous one.
        const previous = chunks[i - 1].text;
        const firstSentence = c.text.split(/(?<=\.)\s/)[0];
        expect(previous).toContain(firstSentence);
        expect(text.indexOf(c.text)).toBeLessThan(text.indexOf(previous) + previous.length);
      }
    }
    // Nothing is lost: the chunks cover the section from its first to its last word.
    expect(text.startsWith(chunks[0].text)).toBe(true);
    expect(text.endsWith(chunks[chunks.length - 1].text)).toBe(true);
    expect(chunks.slice(0, -1).every((c) => c.tokenCount >= 100)).toBe(true);
  });

  it('prefers to end a chunk at a paragraph boundary', () => {
    const text = paragraphs(6, 60);
    const chunks = chunkDocument(doc([{ headingPath: [], text }]), { targetTokens: 200, overlapTokens: 0 });
    const paragraphsOf = text.split('\n\n');
    for (const c of chunks) expect(paragraphsOf.some((p) => c.text.endsWith(p))).toBe(true);
  });

  it('splits sentence-less text between words, and word-less text between characters', () => {
    const words = Array.from({ length: 1000 }, (_, i) => `word${i}`).join(' ');
    const blob = 'x'.repeat(20_000);
    for (const text of [words, blob]) {
      const chunks = chunkDocument(doc([{ headingPath: [], text }]), { targetTokens: 100, overlapTokens: 10 });
      expect(chunks.length).toBeGreaterThan(5);
      for (const c of chunks) {
        expect(c.tokenCount).toBeLessThanOrEqual(150);
        expect(text).toContain(c.text);
      }
    }
  });

  it('never crosses a heading section, but merges tiny neighbours under the same parent', () => {
    const sections: Section[] = [
      { headingPath: ['API'], text: paragraphs(3, 80, 1) },
      { headingPath: ['API', 'Limits'], text: 'Requests are limited to 60 a minute.' },
      { headingPath: ['API', 'Errors'], text: 'Errors use the envelope.' },
      { headingPath: ['API', 'Errors', 'Codes'], text: paragraphs(2, 90, 2) },
      { headingPath: ['Billing'], text: paragraphs(2, 90, 3) },
    ];
    const chunks = chunkDocument(doc(sections), { targetTokens: 200, overlapTokens: 30 });
    // Tiny "Limits" and "Errors" join into one chunk under their parent, headings kept as lines.
    const merged = chunks.find((c) => c.text.includes('60 a minute'))!;
    expect(merged.headingPath).toEqual(['API']);
    expect(merged.text).toBe('Limits\n\nRequests are limited to 60 a minute.\n\nErrors\n\nErrors use the envelope.');
    expectQuoteAtStart(merged);
    // Large sections stay alone: every other chunk's text lies inside one section.
    for (const c of chunks.filter((x) => x !== merged)) {
      const home = sections.filter((s) => s.text.includes(c.text));
      expect(home).toHaveLength(1);
      expect(c.headingPath).toEqual(home[0].headingPath);
    }
    expect(chunks.filter((c) => c.headingPath[0] === 'Billing').every((c) => !c.text.includes('Errors'))).toBe(true);
  });

  it('does not merge cousins (different parents)', () => {
    const chunks = chunkDocument(
      doc([
        { headingPath: ['A', 'A1', 'x'], text: 'Tiny one.' },
        { headingPath: ['B', 'B1', 'y'], text: 'Tiny two.' },
      ]),
    );
    expect(chunks.map((c) => c.headingPath)).toEqual([
      ['A', 'A1', 'x'],
      ['B', 'B1', 'y'],
    ]);
  });

  it('keeps PDF pages apart unless a page is nearly empty, and cites the page where the chunk starts', () => {
    const sections: Section[] = [
      { headingPath: [], text: 'Acme Manual', page: 1 },
      { headingPath: ['Intro'], text: paragraphs(1, 70, 1), page: 2 },
      { headingPath: ['Intro'], text: paragraphs(1, 70, 2), page: 3 },
      { headingPath: ['Intro'], text: paragraphs(4, 80, 3), page: 4 },
    ];
    const chunks = chunkDocument(doc(sections, 'pdf'), { targetTokens: 200, overlapTokens: 30 });
    // The title page (2 tokens) joins page 2; pages 2 and 3 (~90 tokens each) stay apart.
    expect(chunks[0].location.page).toBe(1);
    expect(chunks[0].text.startsWith('Acme Manual\n\nIntro\n\n')).toBe(true);
    expect(chunks[1]).toMatchObject({ location: { page: 3 }, text: sections[2].text });
    const page4 = chunks.filter((c) => c.location.page === 4);
    expect(page4.length).toBeGreaterThan(1);
    expect(page4.every((c) => sections[3].text.includes(c.text))).toBe(true);
  });

  it('skips empty sections and documents', () => {
    expect(chunkDocument(doc([]))).toEqual([]);
    expect(chunkDocument(doc([{ headingPath: ['x'], text: '  \n\n ' }]))).toEqual([]);
  });
});

describe('text fragments', () => {
  it('quotes the start of the chunk within its first block, at a word boundary', () => {
    expect(quoteAtStart('Short line.\nNext')).toBe('Short line.');
    expect(quoteAtStart('port | 8080\nhost | x')).toBe('port');
    const q = quoteAtStart('The installer asks for a folder and an administrator password, then copies files.');
    expect(q).toBe('The installer asks for a folder and an administrator');
    expect(quoteAtStart('東京都の天気は晴れです。明日は雨が降るでしょう。それから風が強くなります。')).toMatch(
      /^東京都/,
    );
  });

  it('percent-encodes per the Text Fragments spec: "-", "&" and "," included', () => {
    expect(encodeTextDirective('e-mail, fax & post')).toBe('e%2Dmail%2C%20fax%20%26%20post');
    expect(encodeTextDirective('100% (sure)')).toBe('100%25%20(sure)');
    const chunk = chunkDocument(doc([{ headingPath: [], text: 'Self-hosting, step by step & more.' }]))[0];
    expect(chunk.location.textFragment).toBe('Self%2Dhosting%2C%20step%20by%20step%20%26%20more.');
    expect(textFragmentUrl('https://acme.test/docs', chunk)).toBe(
      'https://acme.test/docs#:~:text=Self%2Dhosting%2C%20step%20by%20step%20%26%20more.',
    );
    // An existing fragment is kept, an existing directive replaced.
    expect(textFragmentUrl('https://acme.test/docs#intro', chunk)).toMatch(
      /^https:\/\/acme\.test\/docs#intro:~:text=Self%2D/,
    );
    expect(textFragmentUrl('https://acme.test/docs#:~:text=old', chunk)).toMatch(
      /^https:\/\/acme\.test\/docs#:~:text=Self%2D/,
    );
  });

  it('cites PDFs by page and videos by second', () => {
    const [pdfChunk] = chunkDocument(doc([{ headingPath: [], text: 'On page two.', page: 2 }], 'pdf'));
    expect(citationUrl('https://acme.test/manual.pdf#x', pdfChunk)).toBe('https://acme.test/manual.pdf#page=2');
    const [videoChunk] = chunkDocument(doc([{ headingPath: [], text: 'At a minute.', startSeconds: 61.7 }], 'youtube'));
    expect(citationUrl('https://youtu.be/dQw4w9WgXcQ', videoChunk)).toBe('https://youtu.be/dQw4w9WgXcQ?t=61s');
    const [htmlChunk] = chunkDocument(doc([{ headingPath: [], text: 'Plain page.' }]));
    expect(citationUrl('https://acme.test/p', htmlChunk)).toBe('https://acme.test/p#:~:text=Plain%20page.');
  });
});
