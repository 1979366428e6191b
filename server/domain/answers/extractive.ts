/**
 * Provider B, the built-in answerer: offline, no model. It answers with sentences taken from
 * the best passages, in their original wording, and cites where they came from; when the
 * relevance gate says the knowledge does not cover the question it says so honestly.
 *
 * Composition: the passages' prose is split into sentences (code blocks, tables, headings and
 * HTML dropped; list items are sentences). Each sentence is scored by the question terms it
 * contains, weighted by how rare each term is among the candidate sentences (a term every
 * passage repeats says little), plus a bonus when its passage's title or headings are about the
 * question, minus a little per rank. The best sentence leads; the sentence after it (or before
 * it, when it opens with "This"/"It"…) follows for context; sentences from other passages join
 * when they cover question terms not yet covered. 2 to 4 sentences, at most ~700 characters.
 *
 * Follow-ups come from related passages' headings (the ones not used in the answer), as short
 * topics with a "Tell me about …" message, deduplicated.
 */
import type { FollowUp } from '../conversations/ports.js';
import type { SearchHit } from '../knowledge/ports.js';
import type { AnswerMessages } from './messages.js';
import type { AnswerProvider, GenerateInput, GenerateOutput, Passage } from './ports.js';
import { hitTerms } from './relevance.js';
import { normalizeForMatch, sentences, termSet, terms } from './text.js';

const MAX_SENTENCES = 4;
const MIN_SENTENCES = 2;
const MAX_CHARS = 700;
/** Score lost per rank of the passage: retrieval's order counts, sentence evidence more. */
const RANK_PENALTY = 0.02;
/** Passages read for sentences: the top ones and the related ones after them. */
const MAX_POOL = 10;
/** A sentence from another passage joins when it scores at least this share of the best. */
const JOIN_RATIO = 0.65;
/** Sentences longer than this are cut at a word boundary (a pasted wall of text, a long list item). */
const MAX_SENTENCE_CHARS = 400;

interface Candidate {
  text: string;
  passage: Passage;
  /** Block (paragraph or list item) within the passage, and position within the block. */
  block: number;
  index: number;
  /** Position in the passage, for ordering. */
  order: number;
  terms: Set<string>;
  words: number;
  score: number;
}

// ---- Markdown / plain text -> prose blocks -----------------------------------------------------

const FENCE = /^\s*(```|~~~)/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,3}[.)])\s+/;

/** Inline clean-up that keeps the wording: links keep their text, images and HTML tags go. */
function inline(text: string): string {
  return text
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)/g, '$1')
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    .replace(/<\/?[a-zA-Z][^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Paragraphs and list items of prose, in order. */
export function proseBlocks(text: string): string[] {
  const lines = text.split('\n');
  const fences = lines.filter((l) => FENCE.test(l));
  // A chunk can start inside a code block (chunks overlap): an odd number of fences whose first
  // is bare (```, no language) means the first one closes a block that began before the chunk.
  let inCode = fences.length % 2 === 1 && /^\s*(```|~~~)\s*$/.test(fences[0]);
  const blocks: string[] = [];
  let current: string[] = [];
  let listItem = false;
  const end = () => {
    const joined = inline(current.join(' '));
    // A short line standing alone without a sentence's end is a heading kept as text (merged sections).
    const headingLike = !listItem && current.length === 1 && !/[.!?:。！？]["'”’)]*$/.test(joined) && joined.split(/\s+/).length <= 10;
    if (joined && !headingLike) blocks.push(joined);
    current = [];
    listItem = false;
  };
  for (const line of lines) {
    if (FENCE.test(line)) {
      end();
      inCode = !inCode;
      continue;
    }
    if (inCode) continue;
    const trimmed = line.trim();
    if (!trimmed || /^#{1,6}\s/.test(trimmed) || trimmed.startsWith('|') || /^(-{3,}|\*{3,}|_{3,})$/.test(trimmed)) {
      end();
      continue;
    }
    if (/^<[^>]+>$/.test(trimmed) || /^<a\s[^>]*><\/a>$/.test(trimmed)) continue;
    if (/^ {4,}|\t/.test(line) && !current.length) continue; // indented code
    if (LIST_ITEM.test(line)) {
      end();
      listItem = true;
      current.push(trimmed.replace(LIST_ITEM, ''));
      continue;
    }
    if (trimmed.startsWith('>')) {
      current.push(trimmed.replace(/^>\s?/, ''));
      continue;
    }
    current.push(trimmed);
  }
  end();
  return blocks;
}

function limitLength(sentence: string): string {
  if (sentence.length <= MAX_SENTENCE_CHARS) return sentence;
  const cut = sentence.slice(0, MAX_SENTENCE_CHARS);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), MAX_SENTENCE_CHARS / 2)).trimEnd()}…`;
}

/** Mostly symbols or code-like: not worth quoting as a sentence. */
function looksLikeProse(s: string): boolean {
  const letters = s.match(/\p{L}/gu)?.length ?? 0;
  return letters >= 12 && letters / s.length > 0.55 && !/[;{}]\s*$/.test(s);
}

function candidates(passages: Passage[], locale: string): Candidate[] {
  const out: Candidate[] = [];
  // A sentence met twice (one page under two URLs, boilerplate on every page) is a candidate
  // once, in the best-ranked passage that has it, so an answer never says it twice.
  const met = new Set<string>();
  for (const passage of passages) {
    let order = 0;
    proseBlocks(passage.text).forEach((block, b) => {
      sentences(block, locale).forEach((raw, i) => {
        const text = limitLength(raw);
        if (!looksLikeProse(text)) return;
        const key = normalizeForMatch(text);
        if (met.has(key)) return;
        met.add(key);
        out.push({ text, passage, block: b, index: i, order: order++, terms: new Set(terms(text)), words: text.split(/\s+/).length, score: 0 });
      });
    });
  }
  return out;
}

const ANAPHOR = /^(this|that|these|those|it|they|such|then|also|however|otherwise|instead)\b/i;

function score(pool: Candidate[], question: string[], passages: Passage[], standIn?: ReadonlyMap<string, number>) {
  const n = pool.length;
  const df = new Map<string, number>();
  for (const c of pool) for (const t of question) if (c.terms.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  // A stand-in for a question word (expansion.ts) counts with its weight: "pause" for "freeze" is weaker evidence than "freeze".
  const weight = (t: string) => (1 + Math.log((n + 1) / ((df.get(t) ?? 0) + 1))) * (standIn?.get(t) ?? 1);
  const total = question.reduce((s, t) => s + weight(t), 0) || 1;
  // How much a passage's title and headings are about the question.
  const about = new Map<number, number>();
  for (const p of passages) {
    const heads = new Set(terms(`${p.title}\n${p.headingPath.join('\n')}`));
    about.set(p.n, question.filter((t) => heads.has(t)).reduce((s, t) => s + weight(t), 0) / total);
  }
  for (const c of pool) {
    const matched = question.filter((t) => c.terms.has(t));
    if (!matched.length) {
      c.score = 0;
      continue;
    }
    let s = matched.reduce((sum, t) => sum + weight(t), 0) / total;
    s += 0.25 * (about.get(c.passage.n) ?? 0);
    s -= RANK_PENALTY * (c.passage.n - 1);
    if (c.index === 0) s += 0.05;
    // Whole sentences read best: fragments (a heading-like line, an error code) and run-ons less so.
    if (c.words < 6) s *= 0.4;
    else if (c.words > 60) s *= 0.75;
    if (!/[.!?:。！？)]["'”’»)]*$/.test(c.text)) s *= 0.7;
    if (/(:|\b(like so|as follows|for example|e\.g\.)[.:]?)$/i.test(c.text)) s *= 0.85;
    if (ANAPHOR.test(c.text)) s *= 0.9;
    c.score = Math.max(0, s);
  }
}

/** Picks 2-4 sentences: the best, its context, then others covering what is still missing. */
export function selectSentences(pool: Candidate[], question: string[], maxPassages = 5): Candidate[] {
  const ranked = pool.filter((c) => c.score > 0).sort((a, b) => b.score - a.score || a.passage.n - b.passage.n || a.order - b.order);
  const best = ranked[0];
  if (!best) return [];
  const chosen: Candidate[] = [best];
  const has = (c: Candidate) => chosen.includes(c);
  const length = () => chosen.reduce((n, c) => n + c.text.length + 1, 0);
  const fits = (c: Candidate) =>
    chosen.length < MAX_SENTENCES &&
    length() + c.text.length <= MAX_CHARS &&
    (chosen.some((x) => x.passage === c.passage) || new Set(chosen.map((x) => x.passage)).size < maxPassages);
  const samePassage = pool.filter((c) => c.passage === best.passage);
  const at = (block: number, index: number) => samePassage.find((c) => c.block === block && c.index === index);

  // Context: the sentence before when the best one refers back, the one after otherwise.
  const previous = at(best.block, best.index - 1);
  const next = at(best.block, best.index + 1);
  if (ANAPHOR.test(best.text) && previous && fits(previous)) chosen.push(previous);
  if (next && fits(next) && (next.score > 0 || best.text.endsWith(':') || next.words >= 6)) chosen.push(next);

  // Others that cover question terms not covered yet.
  const covered = () => new Set(chosen.flatMap((c) => question.filter((t) => c.terms.has(t))));
  for (const c of ranked) {
    if (chosen.length >= MAX_SENTENCES) break;
    if (has(c) || c.score < best.score * JOIN_RATIO || !fits(c)) continue;
    const seen = covered();
    if (question.some((t) => c.terms.has(t) && !seen.has(t))) chosen.push(c);
  }
  // At least two sentences when the passages have another relevant one.
  if (chosen.length < MIN_SENTENCES) {
    const extra = ranked.find((c) => !has(c) && fits(c)) ?? samePassage.find((c) => !has(c) && c.order > best.order && fits(c));
    if (extra) chosen.push(extra);
  }
  // Reading order: passages in order of first use, sentences in their order within each.
  const passageOrder = [...new Set(chosen.map((c) => c.passage))];
  return chosen.sort((a, b) => passageOrder.indexOf(a.passage) - passageOrder.indexOf(b.passage) || a.order - b.order);
}

function compose(chosen: Candidate[]): string {
  const parts: string[] = [];
  chosen.forEach((c, i) => {
    let text = c.text;
    // A sentence that introduced a code block ends the answer's thought instead.
    if (text.endsWith(':') && (i === chosen.length - 1 || chosen[i + 1].passage !== c.passage || chosen[i + 1].block !== c.block)) text = `${text.slice(0, -1)}.`;
    const sameBlock = i > 0 && chosen[i - 1].passage === c.passage && chosen[i - 1].block === c.block;
    const samePassage = i > 0 && chosen[i - 1].passage === c.passage;
    parts.push(i === 0 ? text : sameBlock ? ` ${text}` : samePassage ? `\n\n${text}` : `\n\n${text}`);
  });
  return parts.join('');
}

// ---- Follow-ups from related passages ---------------------------------------------------------

const cleanTopic = (s: string) =>
  inline(s)
    .replace(/[`*_]/g, '')
    .replace(/[:.]+$/, '')
    .trim();

export function headingFollowUps(hits: SearchHit[], exclude: SearchHit[], question: string, count: number, strings: AnswerMessages): FollowUp[] {
  if (count <= 0) return [];
  const seen = new Set<string>([normalizeForMatch(question)]);
  for (const h of exclude) seen.add(normalizeForMatch(cleanTopic(h.headingPath.at(-1) ?? h.title)));
  const out: FollowUp[] = [];
  for (const hit of hits) {
    const topic = cleanTopic(hit.headingPath.at(-1) || hit.title);
    const key = normalizeForMatch(topic);
    if (!key || topic.length > 80 || seen.has(key)) continue;
    seen.add(key);
    out.push({ title: topic, description: strings.tellMeAbout.replace('{topic}', topic), link: null, isEscalationPrompt: false });
    if (out.length >= count) break;
  }
  return out;
}

// ---- The provider ----------------------------------------------------------------------------

export interface ExtractiveAnswer {
  text: string;
  used: Passage[];
}

/** The extractive answer to `question` from `passages`, or null when no sentence speaks to it. */
export function extractAnswer(
  question: string,
  passages: Passage[],
  locale = 'en',
  maxPassages = 5,
  questionTerms?: ReadonlyMap<string, number>,
): ExtractiveAnswer | null {
  const q = questionTerms ? [...questionTerms.keys()] : termSet(question);
  if (!q.length || !passages.length) return null;
  const pool = candidates(passages, locale);
  score(pool, q, passages, questionTerms);
  const chosen = selectSentences(pool, q, maxPassages);
  if (chosen.length) return { text: compose(chosen), used: [...new Set(chosen.map((c) => c.passage))] };
  const lead = titledLead(pool, q, passages);
  return lead.length ? { text: compose(lead), used: [lead[0].passage] } : null;
}

/**
 * No sentence holds a question word, yet a passage's title or headings name the topic (a short
 * article titled "Reservas y cancelaciones" asked "¿Puedo cancelar una reserva?": its sentences
 * say "cancelación", which no stemmer here relates): the article's opening sentences, from the
 * best-ranked such passage, rather than a refusal the gate did not ask for.
 */
function titledLead(pool: Candidate[], question: string[], passages: Passage[]): Candidate[] {
  const about = passages.find((p) => {
    const heads = new Set(terms(`${p.title}\n${p.headingPath.join('\n')}`));
    return question.some((t) => heads.has(t));
  });
  if (!about) return [];
  const out: Candidate[] = [];
  for (const c of pool.filter((x) => x.passage === about).sort((a, b) => a.order - b.order)) {
    if (out.length >= MIN_SENTENCES || out.reduce((n, x) => n + x.text.length + 1, 0) + c.text.length > MAX_CHARS) break;
    out.push(c);
  }
  return out;
}

export function createExtractiveProvider(): AnswerProvider {
  return {
    name: 'built-in',
    seesInstructions: false,
    async generate(input: GenerateInput): Promise<GenerateOutput> {
      const { strings } = input;
      const reply = (text: string, answered: boolean, used: number[] = [], followUps: FollowUp[] = []): GenerateOutput => {
        input.onToken?.(text);
        return { text, answered, used, followUps, provider: 'built-in', model: null };
      };
      // Sentences are scored over the top passages and the related ones after them (a sentence-level
      // re-ranking); the answer quotes at most topK passages. Passages the question's words do not
      // reach are not quoted from.
      const q = input.terms ? [...input.terms.keys()] : termSet(input.question);
      const pool = [...input.passages, ...input.related].slice(0, MAX_POOL).filter((p) => {
        if (p.coverage !== undefined) return p.coverage > 0;
        const words = hitTerms(p);
        return q.some((t) => words.has(t));
      });
      const answer = input.relevant ? extractAnswer(input.question, pool, input.settings.locale, input.settings.topK, input.terms) : null;
      if (!answer) return reply(strings.noInformation, false);
      const related = [...input.passages, ...input.related].filter((p) => !answer.used.includes(p));
      const followUps = headingFollowUps(related, answer.used, input.question, input.followUpCount, strings);
      // Streamed sentence by sentence, like a model would.
      const pieces = answer.text.match(/[^]*?(?:[.!?。！？](?=\s)|$)\s*/g)?.filter(Boolean) ?? [answer.text];
      for (const piece of pieces) input.onToken?.(piece);
      return { text: answer.text, answered: true, used: answer.used.map((p) => p.n), followUps, provider: 'built-in', model: null };
    },
  };
}
