/**
 * Questions a chunk answers, made at ingest and stored with it (table chunk_questions): the
 * answer engine offers them as follow-ups a visitor could ask next. Written in the chunk's own
 * language: FAQ questions in any language; the templates below in en, de, es, fr, it, nl and pt,
 * only when the chunk's language is clearly one of those (never a question in another language):
 *
 * - FAQ questions: a heading or a line ending in "?" ("## Can I freeze the bread?");
 * - rules: "You can return any item within 30 days…" -> "Can I return any item?";
 * - definitions: "The Ridge 2 is a two-person tent…" -> "What is the Ridge 2?";
 * - durations and prices of the chunk's topic (its last heading, else its title):
 *   "…takes three to five working days and costs 4.90 EUR" -> "How long does delivery take?",
 *   "How much does delivery cost?".
 *
 * At most MAX_QUESTIONS, deduplicated. The engine checks each against the knowledge before
 * offering it (it must be answered, and not by the answer just given).
 */
import { answersKind } from '../answers/answer-kinds.js';
import { sentences, words } from '../answers/text.js';

export const MAX_QUESTIONS = 4;

type Lang = 'en' | 'de' | 'es' | 'fr' | 'it' | 'nl' | 'pt';

const FUNCTION_WORDS: Record<Lang, string[]> = {
  en: ['the', 'and', 'is', 'are', 'you', 'your', 'of', 'to', 'with', 'for', 'can'],
  de: ['der', 'die', 'das', 'und', 'ist', 'sie', 'ihr', 'ein', 'eine', 'mit', 'für', 'nicht'],
  es: ['el', 'la', 'los', 'las', 'y', 'es', 'de', 'que', 'un', 'una', 'para', 'con', 'por'],
  fr: ['le', 'la', 'les', 'et', 'est', 'vous', 'de', 'des', 'un', 'une', 'pour', 'avec'],
  it: ['il', 'lo', 'gli', 'è', 'di', 'che', 'per', 'con', 'non', 'sono', 'della', 'del'],
  nl: ['het', 'een', 'en', 'van', 'zijn', 'niet', 'met', 'voor', 'op', 'je', 'wordt', 'naar'],
  pt: ['os', 'do', 'da', 'dos', 'das', 'um', 'uma', 'não', 'com', 'você', 'ao', 'seu'],
};

/** The chunk's language by its function words; null when none leads (another language, or too little text). */
export function chunkLanguage(text: string): Lang | null {
  const ws = words(text.slice(0, 2000));
  const counts = (Object.keys(FUNCTION_WORDS) as Lang[])
    .map((lang) => {
      const set = new Set(FUNCTION_WORDS[lang]);
      return { lang, n: ws.filter((w) => set.has(w)).length };
    })
    .sort((a, b) => b.n - a.n);
  return counts[0].n > 0 && counts[0].n > counts[1].n ? counts[0].lang : null;
}

const TEMPLATES: Record<
  Lang,
  {
    duration: (t: string, plural: boolean) => string;
    price: (t: string, plural: boolean) => string;
    what: (x: string) => string;
  }
> = {
  en: {
    duration: (t, plural) => `How long ${plural ? 'do' : 'does'} ${t} take?`,
    price: (t, plural) => `How much ${plural ? 'do' : 'does'} ${t} cost?`,
    what: (x) => `What is ${x}?`,
  },
  de: { duration: (t) => `Wie lange dauert ${t}?`, price: (t) => `Was kostet ${t}?`, what: (x) => `Was ist ${x}?` },
  es: { duration: (t) => `¿Cuánto tarda ${t}?`, price: (t) => `¿Cuánto cuesta ${t}?`, what: (x) => `¿Qué es ${x}?` },
  fr: {
    duration: (t) => `Combien de temps prend ${t} ?`,
    price: (t) => `Combien coûte ${t} ?`,
    what: (x) => `Qu'est-ce que ${x} ?`,
  },
  it: {
    duration: (t) => `Quanto tempo richiede ${t}?`,
    price: (t) => `Quanto costa ${t}?`,
    what: (x) => `Che cos'è ${x}?`,
  },
  nl: { duration: (t) => `Hoe lang duurt ${t}?`, price: (t) => `Wat kost ${t}?`, what: (x) => `Wat is ${x}?` },
  pt: {
    duration: (t) => `Quanto tempo demora ${t}?`,
    price: (t) => `Quanto custa ${t}?`,
    what: (x) => `O que é ${x}?`,
  },
};

/** "You can/may X [within…|for…|,…]" -> "Can I X?" (English pages). */
function ruleQuestion(sentence: string): string | null {
  const m =
    /^you (can|may) (?!also\b)(.+?)(?=\s+(?:within|for|at|in|on|by|after|before|until|from|if|when|unless|free)\b|[,;:.(]|$)/i.exec(
      sentence,
    );
  if (!m) return null;
  const rest = m[2]
    .trim()
    .replace(/\byour\b/gi, 'my')
    .replace(/\byou\b/gi, 'I');
  const n = rest.split(/\s+/).length;
  return n >= 1 && n <= 8 ? `Can I ${rest}?` : null;
}

/** "The X is a/an …" -> "What is the X?" (English pages; X of one to four words). */
function definitionQuestion(sentence: string, lang: Lang): string | null {
  if (lang !== 'en') return null;
  const m = /^((?:the |a |an )?[A-Z][\w-]*(?: [\w-]+){0,3}) (?:is|are) (?:a|an|the) /.exec(sentence);
  if (!m || /^(it|this|that|there|these|those|they|we|you)$/i.test(m[1])) return null;
  const subject = m[1].replace(/^(A|An) /, 'a ').replace(/^The /, 'the ');
  return TEMPLATES.en.what(subject);
}

function topicOf(title: string, headingPath: string[], lang: Lang): { topic: string; plural: boolean } | null {
  const raw = (headingPath.at(-1) || title).replace(/[`*_#]/g, '').trim();
  if (!raw || raw.endsWith('?') || raw.split(/\s+/).length > 4) return null;
  // Lower-case a common noun ("Delivery" -> "delivery"), keep names and acronyms ("Ridge 2", "API").
  const topic =
    lang !== 'de' && /^\p{Lu}\p{Ll}+$/u.test(raw.split(/\s+/)[0]) && raw.split(/\s+/).length <= 2
      ? raw.charAt(0).toLowerCase() + raw.slice(1)
      : raw;
  return { topic, plural: /[^s]s$/i.test(topic.split(/\s+/).at(-1)!) };
}

export function chunkQuestions(chunk: { title: string; headingPath: string[]; text: string }): string[] {
  const lang = chunkLanguage(`${chunk.title}\n${chunk.text}`);
  const out: string[] = [];
  const add = (q: string | null) => {
    if (!q) return;
    const clean = q.replace(/\s+/g, ' ').trim();
    if (clean.length < 8 || clean.length > 120) return;
    if (!out.some((x) => x.toLowerCase() === clean.toLowerCase())) out.push(clean);
  };
  // FAQ questions: headings and lines ending in "?".
  for (const h of chunk.headingPath) if (/\?\s*$/.test(h)) add(h.replace(/^#+\s*/, ''));
  for (const line of chunk.text.split('\n')) {
    const t = line
      .replace(/^#{1,6}\s+/, '')
      .replace(/^\*\*(.+)\*\*$/, '$1')
      .trim();
    if (/^[¿\p{Lu}].{6,}\?$/u.test(t) && t.split(/\s+/).length <= 16) add(t);
  }
  if (!lang) return out.slice(0, MAX_QUESTIONS);
  const prose = chunk.text
    .split('\n')
    .filter((l) => !/^\s*(#|```|\|)/.test(l))
    .join(' ');
  const topic = topicOf(chunk.title, chunk.headingPath, lang);
  const t = TEMPLATES[lang];
  for (const s of sentences(prose, lang)) {
    if (lang === 'en') add(ruleQuestion(s));
    add(definitionQuestion(s, lang));
    if (topic && answersKind(s, ['duration']) && /\b(takes?|dauert|tarda|prend|richiede|duurt|demora|leva)\b/i.test(s))
      add(t.duration(topic.topic, topic.plural));
    if (
      topic &&
      /[€$£]\s?\d|\d\s?(€|\$|£|eur|euros?|usd|dollars?|chf)\b|\b(costs?|kostet|cuesta|coûte|costa|kost|custa)\b/iu.test(
        s,
      )
    )
      add(t.price(topic.topic, topic.plural));
  }
  return out.slice(0, MAX_QUESTIONS);
}
