/**
 * Words, stems and sentences: the small amount of language handling the answer engine needs
 * (custom-response matching, the relevance gate, sentence selection), with no dependency.
 * English gets Porter's stemmer (the one SQLite's FTS5 `porter` tokenizer uses, so "bodies"
 * and "body" meet as they do in the index); other languages are compared by lower-cased word.
 */

/** Function words of the locales Parley ships, plus the question scaffolding of English. */
const STOPWORDS_TEXT = `
  a about above after again against all also am an and any are aren as at be because been before being below
  between both but by can cannot could couldn d did didn do does doesn doing don down during each either else
  etc even ever every few for from further get gets getting got had hadn has hasn have haven having he her here
  hers herself him himself his how i if in into is isn it its itself just ll let lets like m may me might mine
  more most must my myself need needs no nor not now of off on once one only or other our ours ourselves out over
  own please re s same shall she should shouldn so some such t than that the their theirs them themselves then
  there these they this those through to too under until up us ve very via was wasn way ways we were weren what
  when where whether which while who whom why will with won would wouldn y you your yours yourself yourselves
  tell know want wants wanted something anything thing things someone anyone able sure possible instead use using
  der die das den dem des ein eine einer eines einem einen und oder aber ich du er sie es wir ihr mein dein sein
  ist sind war bin bist hat haben wie was wer wo warum wann kann können muss mit von zu zum zur im in auf für
  nicht noch auch nur so dass als an bei aus nach über
  le la les un une des du de et ou mais je tu il elle nous vous ils elles est sont suis être avoir ai as a
  comment que qui quoi où pourquoi quand pour par avec sans dans sur ce cette ces mon ma mes ne pas plus
  el los las una unos unas y o pero yo tú él ella nosotros es son soy estar tengo tiene cómo qué quién dónde
  por para con sin en sobre este esta estos mi mis no lo se
  o os um uma uns umas e ou mas eu ele ela nós é são sou ter tem como quem onde porquê quando com sem em no na
  nos nas do da dos das meu minha não
  en et den det de og eller men jeg du han hun vi er var har hvad hvem hvor hvorfor hvornår kan med af til på
  for ikke som
  welche welcher welches welchen gibt gib darf dürfen soll sollte sollen könnte könnten möchte möchten will wollen
  hoch viel viele lange bitte man mich mir dich dir uns euch ihnen ihr ihre ihren mal schon etwa ja nein wenn weil
  denn dann hier dort da sehr mehr alle jeder jede jedes etwas bekomme bekommen geht gehen machen mache wird werden
  wurde habe hast hatte einen einem eines keine kein sich am vom beim ins
  puedo puede pueden podemos podría hay cuánto cuánta cuántos cuántas cuándo cuál cuáles del al le les me te nos su sus
  tu tus muy más también ya si sí cuando donde como porque hasta desde entre algo alguna algún alguno hacer hago
  tienen tenemos estoy está están hacen quiero quisiera usted ustedes
  est-ce puis peut peuvent pouvez faut combien quel quelle quels quelles mes vos votre notre leur leurs ils très
  aussi déjà si lorsque comme
`;
export const STOPWORDS: ReadonlySet<string> = new Set(STOPWORDS_TEXT.split(/\s+/).filter(Boolean));

/** Lower-cased words (letters, digits, marks; `_` keeps identifiers like `onRequest` whole). */
export function words(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}\p{M}_]+/gu) ?? []
  );
}

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]/u;

/**
 * The content terms of a text: words minus stopwords and lone letters, stemmed. Text written
 * without spaces (Japanese, Chinese) becomes character bigrams, the usual unit for such text.
 */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (CJK.test(w)) {
      const chars = [...w];
      if (chars.length === 1) out.push(w);
      for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
      continue;
    }
    if (STOPWORDS.has(w) || (w.length === 1 && /[a-z]/.test(w))) continue;
    out.push(stem(w));
  }
  return out;
}

/** Distinct terms, in order of first appearance. */
export function termSet(text: string): string[] {
  return [...new Set(terms(text))];
}

// ---- Porter's stemmer (M.F. Porter, 1980), for lower-case ASCII words ------------------------

const isConsonant = (w: string, i: number): boolean => {
  const c = w[i];
  if ('aeiou'.includes(c)) return false;
  if (c === 'y') return i === 0 || !isConsonant(w, i - 1);
  return true;
};

/** m(): the number of vowel-consonant sequences in w[0..end). */
function measure(w: string, end: number): number {
  let n = 0;
  let i = 0;
  while (i < end && isConsonant(w, i)) i++;
  while (i < end) {
    while (i < end && !isConsonant(w, i)) i++;
    if (i >= end) break;
    while (i < end && isConsonant(w, i)) i++;
    n++;
  }
  return n;
}

const hasVowel = (w: string, end: number) => {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true;
  return false;
};
const doubleConsonant = (w: string) =>
  w.length >= 2 && w[w.length - 1] === w[w.length - 2] && isConsonant(w, w.length - 1);
/** *o: ends consonant-vowel-consonant, the last not w, x or y. */
const cvc = (w: string, end: number) =>
  end >= 3 &&
  isConsonant(w, end - 3) &&
  !isConsonant(w, end - 2) &&
  isConsonant(w, end - 1) &&
  !'wxy'.includes(w[end - 1]);

function replaceSuffix(w: string, rules: [string, string][], minMeasure: number): string {
  for (const [suffix, replacement] of rules) {
    if (w.endsWith(suffix)) {
      const stemEnd = w.length - suffix.length;
      return measure(w, stemEnd) > minMeasure ? w.slice(0, stemEnd) + replacement : w;
    }
  }
  return w;
}

const STEP2: [string, string][] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['abli', 'able'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
];
const STEP3: [string, string][] = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];
const STEP4 = [
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ion',
  'ou',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
];

/** Stems by word: the same few thousand words recur in every passage. */
const stems = new Map<string, string>();
const STEM_CACHE_SIZE = 50_000;

export function stem(word: string): string {
  if (word.length <= 2) return word;
  let s = stems.get(word);
  if (s === undefined) {
    s = /^[a-z]+$/.test(word) ? porter(word) : word;
    if (stems.size >= STEM_CACHE_SIZE) stems.clear();
    stems.set(word, s);
  }
  return s;
}

function porter(word: string): string {
  let w = word;
  // Step 1a
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('ss')) {
    /* unchanged */
  } else if (w.endsWith('s')) w = w.slice(0, -1);
  // Step 1b
  let extra = false;
  if (w.endsWith('eed')) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && hasVowel(w, w.length - 2)) {
    w = w.slice(0, -2);
    extra = true;
  } else if (w.endsWith('ing') && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3);
    extra = true;
  }
  if (extra) {
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (doubleConsonant(w) && !'lsz'.includes(w[w.length - 1])) w = w.slice(0, -1);
    else if (measure(w, w.length) === 1 && cvc(w, w.length)) w += 'e';
  }
  // Step 1c
  if (w.endsWith('y') && hasVowel(w, w.length - 1)) w = w.slice(0, -1) + 'i';
  // Steps 2 and 3
  w = replaceSuffix(w, STEP2, 0);
  w = replaceSuffix(w, STEP3, 0);
  // Step 4
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const stemEnd = w.length - suffix.length;
    if (measure(w, stemEnd) > 1 && (suffix !== 'ion' || 'st'.includes(w[stemEnd - 1] ?? ''))) w = w.slice(0, stemEnd);
    break;
  }
  // Step 5
  if (w.endsWith('e')) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !cvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  if (measure(w, w.length) > 1 && doubleConsonant(w) && w.endsWith('l')) w = w.slice(0, -1);
  return w;
}

// ---- Sentences ------------------------------------------------------------------------------

const segmenters = new Map<string, Intl.Segmenter>();
function sentenceSegmenter(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale);
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity: 'sentence' });
    segmenters.set(locale, s);
  }
  return s;
}

/** Sentences of a paragraph of prose, trimmed, in order. */
export function sentences(text: string, locale = 'en'): string[] {
  const out: string[] = [];
  for (const s of sentenceSegmenter(locale).segment(text)) {
    const t = s.segment.trim();
    if (t) out.push(t);
  }
  return out;
}

/** Collapses runs of whitespace and lower-cases: the form two texts are compared in. */
export function normalizeForMatch(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
