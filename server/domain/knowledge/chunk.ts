/**
 * ExtractedDocument -> chunks: passages of a few hundred tokens that follow the document's
 * structure, each with its heading path and an exact location (PDF page, video time, a quote
 * usable as a `#:~:text=` fragment) so an answer can cite the place it came from.
 */
import type { ExtractedDocument, Section } from './documents.js';

export interface Chunk {
  /** Position in the document, from 0. */
  index: number;
  /** An exact slice of the document's text (tiny sections merged into one chunk keep their headings as lines). */
  text: string;
  tokenCount: number;
  headingPath: string[];
  location: {
    page?: number;
    startSeconds?: number;
    /** A short exact quote from the chunk's start, percent-encoded as a text directive value. */
    textFragment: string;
  };
}

export interface ChunkOptions {
  /** Tokens a chunk aims at. Default 300. */
  targetTokens?: number;
  /** Tokens repeated from the end of one chunk at the start of the next. Default 50. */
  overlapTokens?: number;
}

// CJK ideographs, kana and hangul: about one token each, and written without spaces.
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]/g;

/**
 * Approximate token count, no tokenizer needed: the larger of 1.3 tokens per word and one token
 * per 4 characters (URLs, code and numbers are denser than prose), plus one per CJK character.
 * Within ~15 % of GPT/BPE counts for English prose; it only sizes chunks, it bills nothing.
 */
export function estimateTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  const rest = cjk ? text.replace(CJK, ' ') : text;
  const words = rest.match(/\S+/g)?.length ?? 0;
  const chars = rest.replace(/\s+/g, ' ').trim().length;
  return cjk + Math.max(Math.ceil(words * 1.3), Math.ceil(chars / 4));
}

/** A section as placed in a group's text. */
interface Member {
  section: Section;
  /** Where its text (after any heading lines added for it) begins in the group text. */
  from: number;
}

interface Group {
  headingPath: string[];
  text: string;
  members: Member[];
}

interface Unit {
  from: number;
  to: number;
  tokens: number;
  /** First sentence of a paragraph: the preferred place to cut. */
  paragraphStart: boolean;
}

function commonPrefix(a: string[], b: string[]): string[] {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

/** Siblings, or a parent and its child: both sit under the same parent heading. */
function sameParent(a: string[], b: string[]): boolean {
  return commonPrefix(a, b).length >= Math.min(a.length, b.length) - 1;
}

/**
 * Sections -> groups. A section is its own group unless it is tiny, in which case it joins its
 * neighbour under the same parent heading while the two still fit one chunk. Across a PDF page
 * (or a transcript section) only nearly empty sections join, so a chunk's page stays its own.
 */
function groupSections(sections: Section[], target: number): Group[] {
  const tiny = Math.max(1, Math.round(target * 0.25));
  const tinyAcrossPages = Math.max(1, Math.round(target * 0.1));
  const raw: { sections: Section[]; tokens: number }[] = [];
  for (const section of sections) {
    const tokens = estimateTokens(section.text);
    const last = raw[raw.length - 1];
    if (last) {
      const prev = last.sections[last.sections.length - 1];
      const crossesPlace = prev.page !== section.page || prev.startSeconds !== section.startSeconds;
      const limit = crossesPlace ? tinyAcrossPages : tiny;
      const headings = section.headingPath.reduce((n, h) => n + estimateTokens(h), 0);
      if (
        (last.tokens < limit || tokens < limit) &&
        last.tokens + tokens + headings <= target &&
        sameParent(prev.headingPath, section.headingPath)
      ) {
        last.sections.push(section);
        last.tokens += tokens + headings;
        continue;
      }
    }
    raw.push({ sections: [section], tokens });
  }
  return raw.map(({ sections: members }) => {
    if (members.length === 1)
      return {
        headingPath: members[0].headingPath,
        text: members[0].text,
        members: [{ section: members[0], from: 0 }],
      };
    const path = members.map((m) => m.headingPath).reduce(commonPrefix);
    // The headings that separated the merged sections are part of the document's text: keep
    // them as lines so the chunk still says what each part is about.
    let text = '';
    const placed: Member[] = [];
    let previous: string[] = path;
    for (const section of members) {
      const own = section.headingPath;
      const lines = own.slice(Math.max(commonPrefix(previous, own).length, path.length));
      if (text) text += '\n\n';
      const start = text.length;
      if (lines.length) text += lines.join('\n\n') + '\n\n';
      placed.push({ section, from: start });
      text += section.text;
      previous = own;
    }
    return { headingPath: path, text, members: placed };
  });
}

const sentenceSegmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/** Trimmed [from, to) of a slice, or null when it is blank. */
function trimmed(text: string, from: number, to: number): [number, number] | null {
  while (from < to && /\s/.test(text[from])) from++;
  while (to > from && /\s/.test(text[to - 1])) to--;
  return from < to ? [from, to] : null;
}

/** A piece longer than the target is cut between words (between characters when one "word" is itself too long). */
function splitLong(text: string, from: number, to: number, target: number, out: Unit[]) {
  const push = (a: number, b: number) => {
    const t = trimmed(text, a, b);
    if (t) out.push({ from: t[0], to: t[1], tokens: estimateTokens(text.slice(t[0], t[1])), paragraphStart: false });
  };
  // Running estimate of [start, here), the same formula as estimateTokens, kept incrementally.
  let start = from;
  let words = 0;
  let cjk = 0;
  const estimate = (end: number) => cjk + Math.max(Math.ceil(words * 1.3), Math.ceil((end - start) / 4));
  const re = /\S+/g;
  re.lastIndex = from;
  for (let m = re.exec(text); m && m.index < to; m = re.exec(text)) {
    const wordEnd = Math.min(m.index + m[0].length, to);
    const word = text.slice(m.index, wordEnd);
    const w = estimateTokens(word);
    if (w > target) {
      // A URL, base64, CJK without spaces: fixed-size character cuts.
      if (words) push(start, m.index);
      const step = Math.max(16, Math.floor((word.length * target) / w));
      for (let i = m.index; i < wordEnd; i += step) push(i, Math.min(i + step, wordEnd));
      start = wordEnd;
      words = 0;
      cjk = 0;
      continue;
    }
    const wordCjk = word.match(CJK)?.length ?? 0;
    words++;
    cjk += wordCjk;
    if (words > 1 && estimate(wordEnd) > target) {
      words--;
      cjk -= wordCjk;
      push(start, m.index);
      start = m.index;
      words = 1;
      cjk = wordCjk;
    }
  }
  push(start, to);
}

/** Paragraphs (blank-line separated) -> sentences, each at most `target` tokens. */
function units(text: string, target: number): Unit[] {
  const out: Unit[] = [];
  const paragraph = /\n[ \t]*\n/g;
  let at = 0;
  const paragraphs: [number, number][] = [];
  for (let m = paragraph.exec(text); m; m = paragraph.exec(text)) {
    paragraphs.push([at, m.index]);
    at = m.index + m[0].length;
  }
  paragraphs.push([at, text.length]);
  for (const [pFrom, pTo] of paragraphs) {
    const p = trimmed(text, pFrom, pTo);
    if (!p) continue;
    let first = true;
    for (const s of sentenceSegmenter.segment(text.slice(p[0], p[1]))) {
      const t = trimmed(text, p[0] + s.index, p[0] + s.index + s.segment.length);
      if (!t) continue;
      const tokens = estimateTokens(text.slice(t[0], t[1]));
      if (tokens > target) {
        const before = out.length;
        splitLong(text, t[0], t[1], target, out);
        if (out.length > before) out[before].paragraphStart = first;
      } else out.push({ from: t[0], to: t[1], tokens, paragraphStart: first });
      first = false;
    }
  }
  return out;
}

/**
 * Consecutive units -> windows of about `target` tokens. A window ends at the last paragraph
 * start past half the target when there is one, else at a sentence; the next window repeats the
 * last sentences of the previous one, up to `overlap` tokens.
 */
function windows(list: Unit[], target: number, overlap: number): [number, number][] {
  const out: [number, number][] = [];
  const n = list.length;
  let start = 0;
  let done = 0; // units [0, done) are covered
  while (done < n) {
    let end = start;
    let tokens = 0;
    // Always take at least one unit not covered yet, so every window makes progress.
    while (end < n && (end <= done || tokens + list[end].tokens <= target)) tokens += list[end++].tokens;
    if (end < n) {
      let sum = 0;
      const prefix: number[] = [];
      for (let k = start; k < end; k++) prefix.push((sum += list[k].tokens));
      for (let k = end - 1; k > done; k--) {
        if (list[k].paragraphStart && prefix[k - 1 - start] >= target * 0.5) {
          end = k;
          break;
        }
      }
    }
    out.push([start, end]);
    done = end;
    if (end >= n) break;
    let s = end;
    let o = 0;
    while (s - 1 > start && o + list[s - 1].tokens <= overlap) o += list[--s].tokens;
    // A long last sentence still overlaps when it is not much longer than the overlap.
    if (s === end && end - 1 > start && list[end - 1].tokens <= overlap * 2) s = end - 1;
    start = s;
  }
  return out;
}

/** Percent-encodes a text directive value: the URL-unsafe characters plus the directive's own syntax `-`, `&` and `,`. */
export function encodeTextDirective(text: string): string {
  return encodeURIComponent(text).replace(/-/g, '%2D');
}

const QUOTE_MIN_CHARS = 40;
const QUOTE_MAX_CHARS = 100;

/**
 * The start of the chunk as a quote a browser can find: within its first block (line; a
 * table's first cell), cut at a word boundary after about 40 characters.
 */
export function quoteAtStart(text: string): string {
  const firstBlock = text.split('\n', 1)[0].split(' | ', 1)[0].trim();
  if (firstBlock.length <= QUOTE_MIN_CHARS) return firstBlock;
  let end = 0;
  for (const w of wordSegmenter.segment(firstBlock.slice(0, QUOTE_MAX_CHARS + 40))) {
    const wordEnd = w.index + w.segment.length;
    if (w.isWordLike) {
      if (wordEnd > QUOTE_MAX_CHARS && end > 0) break;
      end = wordEnd;
      if (end >= QUOTE_MIN_CHARS) break;
    }
  }
  return firstBlock.slice(0, end || Math.min(firstBlock.length, QUOTE_MAX_CHARS)).trim();
}

/**
 * Cuts a document into chunks by its structure: never across a heading section or a PDF page
 * (tiny sections excepted, see groupSections), long sections at paragraph then sentence
 * boundaries into ~targetTokens with ~overlapTokens of overlap. No chunk exceeds
 * targetTokens + 2 x overlapTokens (estimated).
 */
export function chunkDocument(doc: ExtractedDocument, options: ChunkOptions = {}): Chunk[] {
  const target = Math.max(20, Math.round(options.targetTokens ?? 300));
  const overlap = Math.max(0, Math.min(Math.round(options.overlapTokens ?? 50), Math.floor(target / 2)));
  const sections = doc.sections.filter((s) => s.text.trim());
  const chunks: Chunk[] = [];
  for (const group of groupSections(sections, target)) {
    const whole = trimmed(group.text, 0, group.text.length);
    if (!whole) continue;
    const total = estimateTokens(group.text);
    let spans: [number, number][];
    if (total <= target * 1.2) spans = [whole];
    else {
      const list = units(group.text, target);
      spans = windows(list, target, overlap).map(([a, b]) => [list[a].from, list[b - 1].to]);
    }
    for (const [from, to] of spans) {
      const text = group.text.slice(from, to);
      // The place is the one where the chunk starts (where the quote is).
      let member = group.members[0];
      for (const m of group.members) if (m.from <= from) member = m;
      const { page, startSeconds } = member.section;
      chunks.push({
        index: chunks.length,
        text,
        tokenCount: estimateTokens(text),
        headingPath: [...group.headingPath],
        location: {
          ...(page !== undefined ? { page } : {}),
          ...(startSeconds !== undefined ? { startSeconds } : {}),
          textFragment: encodeTextDirective(quoteAtStart(text)),
        },
      });
    }
  }
  return chunks;
}

/** `url#:~:text=<quote>` (an existing #fragment is kept, an existing text directive replaced). */
export function textFragmentUrl(url: string, chunk: Chunk): string {
  const hash = url.indexOf('#');
  const base = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 ? '' : url.slice(hash + 1).split(':~:')[0];
  if (!chunk.location.textFragment) return fragment ? `${base}#${fragment}` : base;
  return `${base}#${fragment}:~:text=${chunk.location.textFragment}`;
}

/**
 * The link an answer cites: a video at its second (`t=`), a PDF at its page (`#page=`), a web
 * page at its quote (`#:~:text=`).
 */
export function citationUrl(url: string, chunk: Chunk): string {
  const { startSeconds, page } = chunk.location;
  if (startSeconds !== undefined) {
    try {
      const u = new URL(url);
      u.searchParams.set('t', `${Math.floor(startSeconds)}s`);
      return u.href;
    } catch {
      return url;
    }
  }
  if (page !== undefined) return `${url.split('#')[0]}#page=${page}`;
  return textFragmentUrl(url, chunk);
}
