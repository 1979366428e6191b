/**
 * Provider B, the built-in answerer: offline, no model. It answers with sentences taken from
 * the best passages, in their original wording, and cites where they came from; when the
 * relevance gate says the knowledge does not cover the question it says so honestly.
 *
 * Composition: the passages' prose is split into sentences (code blocks, tables, headings and
 * HTML dropped; list items and "Label: figure" lines are sentences). Each sentence is scored by the
 * question terms it holds, weighted by their rarity among the candidates, by what the question asks
 * for (a duration, a price, a rule: answer-kinds.ts), and by its passage's title and headings.
 * The best sentence leads; others join only for what they add (selectSentences); a neighbour
 * joins only when the best one needs it. Quoted in the passage's order, 1 to 4 sentences, at most
 * ~700 characters, a section's heading first when it says what the quoted lines do not.
 *
 * Follow-ups are not made here: the engine offers questions stored at ingest (follow-ups.ts).
 */
import type { FollowUp } from '../conversations/ports.js';
import type { AnswerProvider, GenerateInput, GenerateOutput, Passage } from './ports.js';
import { hitTerms } from './relevance.js';
import { answersKind, questionEntities, questionKinds, questionNumbers, type AnswerKind } from './answer-kinds.js';
import { normalizeForMatch, sentences, termSet, terms } from './text.js';

const MAX_SENTENCES = 4;
/** Sentences of an article's opening quoted when only its title names the topic. */
const LEAD_SENTENCES = 2;
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
  /** Gives what the question asks for (answer-kinds.ts). */
  kind?: boolean;
  /** A question in the text (an FAQ's "Can I freeze the bread?"): its answer is quoted, not it. */
  asks: boolean;
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
    // A short line standing alone without a sentence's end is a heading kept as text (merged sections),
    // unless it is a label with a figure ("Sat: 12pm-11pm non stop", "Fee: 3 EUR"): that is an answer.
    const headingLike =
      !listItem &&
      current.length === 1 &&
      !/[.!?:。！？]["'”’)]*$/.test(joined) &&
      joined.split(/\s+/).length <= 10 &&
      !/\S:\s+\S*\d/.test(joined);
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
        out.push({
          text,
          passage,
          block: b,
          index: i,
          order: order++,
          terms: new Set(terms(text)),
          words: text.split(/\s+/).length,
          score: 0,
          asks: /[?？]["'”’»)]*$/.test(text),
        });
      });
    });
  }
  return out;
}

/** A sentence opening with a pronoun needs what it refers to: the sentence before, or a heading. */
const PRONOUN = /^(it|its|they|their|this|these|that|those|such)\b/i;
const ANAPHOR = /^(this|that|these|those|it|they|such|then|also|however|otherwise|instead)\b/i;

/** A question word's stand-in at least this close counts as the question's own word (not a cue word nor a broader term). */
const OWN_WEIGHT = 0.7;
/**
 * Score added to a sentence that gives what the question asks for: a duration for "how long", a
 * price for "how much"; a permission or rule for "can I" less, modal verbs being everywhere.
 */
const KIND_BONUS = 0.35;
const PERMISSION_BONUS = 0.1;
const PROCEDURE_BONUS = 0.15;
/** A question word a sentence does not hold but its page's title or headings do counts this much: the page says what it is about. */
const HEADING_SHARE = 0.5;
/** Score added to a sentence holding a number the question holds. */
const NUMBER_BONUS = 0.2;
/** Weight factor of a name the question holds ("Ridge 2", "Zurich"). */
const ENTITY_FACTOR = 1.5;

export interface QuestionShape {
  /** The question's terms and stand-ins (frame words such as "long" in "how long" left out). */
  terms: string[];
  weights: ReadonlyMap<string, number>;
  /** Term -> the question word it stands for: covering a word twice adds nothing. */
  conceptOf: ReadonlyMap<string, string>;
  kinds: AnswerKind[];
  numbers: string[];
  /** Terms of the names in the question. */
  entities: Set<string>;
}

/**
 * Words that frame the question rather than name its topic: "long" and "take" in "how long does
 * delivery take?", "work" in "how do returns work?" (the kind of answer stands for them).
 */
const FRAMES: [RegExp, string[]][] = [
  [/\bhow long\b/i, ['long']],
  [/\bhow much\b/i, ['much']],
  [/\bhow many\b/i, ['many']],
  [/\bhow long\b.*\btake\b/i, ['take']],
  [/\bhow (do|does|did|will|would|can)\b.*\bwork\b/i, ['work']],
  [/\bwhat happens\b/i, ['happen']],
  [/\btell me (more )?about\b/i, ['tell']],
  [/\bwie lange\b/i, ['lang']],
  [/\bwie funktionier/i, ['funktioniert', 'funktionieren']],
  [/\bcuánto tiempo\b/i, ['tiempo']],
  [/\bcómo funciona/i, ['funciona', 'funcionan']],
  [/\bcombien de temps\b/i, ['temp']],
  [/\bcomment fonctionne/i, ['fonctionn']],
];

export function questionShape(
  question: string,
  weights?: ReadonlyMap<string, number>,
  concepts?: readonly { term: string; alternatives: ReadonlyMap<string, number> }[],
): QuestionShape {
  const frame = new Set(FRAMES.flatMap(([re, ts]) => (re.test(question) ? ts : [])).flatMap((t) => [t, ...terms(t)]));
  const groups =
    concepts ??
    (weights ? [...weights.keys()] : termSet(question)).map((t) => ({
      term: t,
      alternatives: new Map([[t, weights?.get(t) ?? 1]]),
    }));
  const w = new Map<string, number>();
  const conceptOf = new Map<string, string>();
  for (const c of groups) {
    if (frame.has(c.term)) continue;
    for (const [t, weight] of c.alternatives) {
      if (weight <= (w.get(t) ?? 0)) continue;
      w.set(t, weight);
      conceptOf.set(t, c.term);
    }
  }
  return {
    terms: [...w.keys()],
    weights: w,
    conceptOf,
    kinds: questionKinds(question),
    numbers: questionNumbers(question),
    entities: new Set(questionEntities(question).flatMap((x) => terms(x))),
  };
}

const isOwn = (shape: QuestionShape, t: string) => (shape.weights.get(t) ?? 1) >= OWN_WEIGHT;

function score(pool: Candidate[], shape: QuestionShape, passages: Passage[]) {
  const question = shape.terms;
  const n = pool.length;
  const df = new Map<string, number>();
  for (const c of pool) for (const t of question) if (c.terms.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  // A stand-in for a question word (expansion.ts) counts with its weight: "pause" for "freeze" is weaker evidence than "freeze".
  const weight = (t: string) =>
    (1 + Math.log((n + 1) / ((df.get(t) ?? 0) + 1))) *
    (shape.weights.get(t) ?? 1) *
    (shape.entities.has(t) ? ENTITY_FACTOR : 1);
  // A question word counts once, by its best matched form: a stand-in adds nothing to the word itself.
  const covering = (has: (t: string) => boolean) => {
    const best = new Map<string, number>();
    for (const t of question) {
      if (!has(t)) continue;
      const c = shape.conceptOf.get(t) ?? t;
      best.set(c, Math.max(best.get(c) ?? 0, weight(t)));
    }
    return [...best.values()].reduce((a, b) => a + b, 0);
  };
  const total = covering(() => true) || 1;
  // How much a passage's title and headings are about the question.
  const about = new Map<number, number>();
  const headTerms = new Map<number, Set<string>>();
  for (const p of passages) {
    const heads = new Set(terms(`${p.title}\n${p.headingPath.join('\n')}`));
    headTerms.set(p.n, heads);
    about.set(p.n, covering((t) => heads.has(t)) / total);
  }
  for (const c of pool) {
    const matched = question.filter((t) => c.terms.has(t));
    const own = matched.some((t) => isOwn(shape, t));
    const aboutPassage = about.get(c.passage.n) ?? 0;
    // What the question asks for, said in a sentence whose words or page are about the question.
    c.kind = (own || aboutPassage > 0) && answersKind(c.text, shape.kinds);
    if (!own && !c.kind) {
      c.score = 0;
      continue;
    }
    const heads = headTerms.get(c.passage.n)!;
    const inSentence = covering((t) => c.terms.has(t));
    let s = (inSentence + HEADING_SHARE * (covering((t) => c.terms.has(t) || heads.has(t)) - inSentence)) / total;
    s += 0.25 * aboutPassage;
    if (c.kind) {
      const strong = shape.kinds.filter((k) => k !== 'permission' && k !== 'procedure');
      s +=
        strong.length && answersKind(c.text, strong)
          ? KIND_BONUS
          : answersKind(c.text, ['procedure']) && shape.kinds.includes('procedure')
            ? PROCEDURE_BONUS
            : PERMISSION_BONUS;
    }
    if (shape.numbers.some((x) => new RegExp(`(^|[^\\d])${x.replace('.', '\\.')}([^\\d]|$)`).test(c.text)))
      s += NUMBER_BONUS;
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
  // An FAQ's question matches the visitor's words, the sentence after it answers: the answer takes
  // the question's score and words, and the question itself is never quoted.
  for (const c of pool) {
    if (!c.asks) continue;
    const answer = pool.find((x) => x.passage === c.passage && x.order === c.order + 1 && !x.asks);
    if (answer && c.score > answer.score) {
      answer.score = c.score;
      for (const t of c.terms) answer.terms.add(t);
    }
    c.score = 0;
  }
}

/**
 * The sentences that answer: the best one, then others only for what they add. A sentence joins
 * when it scores near the best and covers one of the question's own words not covered yet, or
 * gives what the question asks for (a duration, a price…) from the best sentence's passage. A
 * neighbour of the best joins only when the best needs it: it refers back ("This…", "It…": the
 * sentence before) or introduces what follows ("…as follows:": the sentence after).
 */
export function selectSentences(pool: Candidate[], shape: QuestionShape, maxPassages = 5): Candidate[] {
  const ranked = pool
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.passage.n - b.passage.n || a.order - b.order);
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

  const previous = at(best.block, best.index - 1);
  const next = at(best.block, best.index + 1) ?? samePassage.find((c) => c.block === best.block + 1 && c.index === 0);
  const ownConcepts = (c: Candidate) =>
    new Set(shape.terms.filter((t) => c.terms.has(t) && isOwn(shape, t)).map((t) => shape.conceptOf.get(t)));
  // The sentence before joins for what it says about the question beyond its page's title, not for
  // being next to the best: "The Beam headlamp gives 400 lumens." is not quoted for "It lasts 40
  // hours" (the page is the headlamp's); the heading names what "It" is instead (compose).
  const headsOf = (p: Passage) => new Set(terms(`${p.title}\n${p.headingPath.join('\n')}`));
  const saysMore = (c: Candidate) => {
    const heads = headsOf(c.passage);
    return shape.terms.some((t) => c.terms.has(t) && isOwn(shape, t) && !heads.has(t));
  };
  if (ANAPHOR.test(best.text) && previous && fits(previous) && saysMore(previous)) chosen.push(previous);
  if (best.text.endsWith(':') && next && fits(next)) chosen.push(next);

  // A page's title and headings say what its sentences are about: "headlamp" is covered by a sentence of the headlamp's page.
  const covered = () =>
    new Set(
      chosen.flatMap((c) => {
        const heads = headsOf(c.passage);
        return shape.terms.filter((t) => c.terms.has(t) || heads.has(t)).map((t) => shape.conceptOf.get(t));
      }),
    );
  const bestOwn = ownConcepts(best);
  for (const c of ranked) {
    if (chosen.length >= MAX_SENTENCES) break;
    if (has(c) || c.score < best.score * JOIN_RATIO || !fits(c)) continue;
    const seen = covered();
    const addsWord = shape.terms.some((t) => c.terms.has(t) && !seen.has(shape.conceptOf.get(t)) && isOwn(shape, t));
    // Another answer of the kind asked for, about the same thing: "Ein Stadtrad kostet 12 Euro"
    // does not join "Ein E-Bike kostet 25 Euro pro Tag" asked the price of an e-bike.
    const own = ownConcepts(c);
    const addsAnswer = c.kind && c.passage === best.passage && own.size > 0 && [...bestOwn].every((x) => own.has(x));
    // Another page saying much the same (most of the question's own words): a second source.
    const corroborates =
      c.passage !== best.passage &&
      own.size >= Math.max(2, (2 / 3) * bestOwn.size) &&
      shape.terms.some((t) => isOwn(shape, t) && headsOf(c.passage).has(t));
    if (addsWord || addsAnswer || corroborates) chosen.push(c);
  }
  // Reading order: passages in order of first use, sentences in their order within each.
  const passageOrder = [...new Set(chosen.map((c) => c.passage))];
  return chosen.sort((a, b) => passageOrder.indexOf(a.passage) - passageOrder.indexOf(b.passage) || a.order - b.order);
}

/** Headings longer than this are sentences in disguise, not a label worth repeating. */
const MAX_HEADING_WORDS = 6;

/**
 * The heading a passage's quoted sentences need to be understood: the section's own heading
 * (else the page title) when it names a question word none of those sentences says ("Sat: 12pm-11pm"
 * under "Opening hours", asked "When do you open on Saturday?"). Null when the sentences speak for themselves.
 */
function neededHeading(group: Candidate[], shape: QuestionShape): string | null {
  const passage = group[0].passage;
  const heading = (passage.headingPath.at(-1) || passage.title || '').replace(/^#+\s*|[*_`]/g, '').trim();
  if (!heading || heading.endsWith('?') || heading.split(/\s+/).length > MAX_HEADING_WORDS) return null;
  const said = new Set(
    group.flatMap((c) => shape.terms.filter((t) => c.terms.has(t)).map((t) => shape.conceptOf.get(t))),
  );
  const headingTerms = new Set(terms(heading));
  const adds = shape.terms.some((t) => headingTerms.has(t) && !said.has(shape.conceptOf.get(t)));
  // "It lasts 40 hours" quoted without the sentence before: the heading says what "It" is.
  const first = group[0];
  const before = first.index > 0 && !group.some((c) => c.block === first.block && c.index === first.index - 1);
  return adds || (before && PRONOUN.test(first.text)) ? heading : null;
}

function compose(chosen: Candidate[], shape: QuestionShape): string {
  const parts: string[] = [];
  chosen.forEach((c, i) => {
    let text = c.text;
    if (i === 0 || chosen[i - 1].passage !== c.passage) {
      const heading = neededHeading(
        chosen.filter((x) => x.passage === c.passage),
        shape,
      );
      if (heading) text = `**${heading}** — ${text}`;
    }
    // A sentence that introduced a code block ends the answer's thought instead.
    if (
      text.endsWith(':') &&
      (i === chosen.length - 1 || chosen[i + 1].passage !== c.passage || chosen[i + 1].block !== c.block)
    )
      text = `${text.slice(0, -1)}.`;
    const sameBlock = i > 0 && chosen[i - 1].passage === c.passage && chosen[i - 1].block === c.block;
    const samePassage = i > 0 && chosen[i - 1].passage === c.passage;
    parts.push(i === 0 ? text : sameBlock ? ` ${text}` : samePassage ? `\n\n${text}` : `\n\n${text}`);
  });
  return parts.join('');
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
  concepts?: GenerateInput['concepts'],
): ExtractiveAnswer | null {
  const shape = questionShape(question, questionTerms, concepts);
  const q = shape.terms;
  if (!q.length || !passages.length) return null;
  const pool = candidates(passages, locale);
  score(pool, shape, passages);
  const chosen = selectSentences(pool, shape, maxPassages);
  if (chosen.length) return { text: compose(chosen, shape), used: [...new Set(chosen.map((c) => c.passage))] };
  const lead = titledLead(pool, q, passages);
  return lead.length ? { text: compose(lead, shape), used: [lead[0].passage] } : null;
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
    if (out.length >= LEAD_SENTENCES || out.reduce((n, x) => n + x.text.length + 1, 0) + c.text.length > MAX_CHARS)
      break;
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
      const reply = (
        text: string,
        answered: boolean,
        used: number[] = [],
        followUps: FollowUp[] = [],
      ): GenerateOutput => {
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
      const answer = input.relevant
        ? extractAnswer(input.question, pool, input.settings.locale, input.settings.topK, input.terms, input.concepts)
        : null;
      if (!answer) return reply(strings.noInformation, false);
      // Follow-ups: the questions stored with the related chunks, checked by the engine (follow-ups.ts).
      const followUps: FollowUp[] = [];
      // Streamed sentence by sentence, like a model would.
      const pieces = answer.text.match(/[^]*?(?:[.!?。！？](?=\s)|$)\s*/g)?.filter(Boolean) ?? [answer.text];
      for (const piece of pieces) input.onToken?.(piece);
      return {
        text: answer.text,
        answered: true,
        used: answer.used.map((p) => p.n),
        followUps,
        provider: 'built-in',
        model: null,
      };
    },
  };
}
