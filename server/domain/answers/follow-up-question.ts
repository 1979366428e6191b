/**
 * Does a visitor's message depend on the previous question? Only then does the engine search it
 * with that question too (engine.ts): "and for Germany?", "how much is it?", "what about
 * returns?" carry no topic of their own, while "How long does delivery take?" after a greeting,
 * an off-topic question or another question is searched alone.
 *
 * A message depends on the previous one when it is short (at most FOLLOW_UP_TERMS content terms)
 * and either has no content term at all ("how much is it?", "why?"), opens with a connective
 * ("and…", "what about…", "und…", "¿y…", "et…"), or holds a pronoun standing for something said
 * before ("it", "that", "them", "es", "das", "eso", "ça"…). Small talk never depends on anything.
 */
import { asks, withoutAskWords } from './question-words.js';
import { termSet, normalizeForMatch } from './text.js';

/** At most this many content terms: a longer message names its own topic. */
export const FOLLOW_UP_TERMS = 3;

const CONNECTIVE =
  /^(and|also|or|but|what about|how about|what if|same for|same with|und|oder|aber|auch|was ist mit|wie ist es mit|und wie|y|o|pero|también|qué pasa con|y si|et|ou|mais|aussi|et pour|et si|qu en est il|e|o|ma|anche|en|of|maar|ook|i|a|oraz|och|eller|men|og)\b/;
const PRONOUN =
  /\b(it|its|it s|that|this|these|those|them|they|their|one|ones|es|das|dies|diese|dieser|dafür|davon|damit|dort|dann|lo|la|los|las|eso|esto|ese|esa|allí|ahí|entonces|ça|cela|ceci|celui|celle|y aller|là|alors|esso|essa|questo|quello|lì|isso|isto|aquilo|lá|het|dat|dit|daar|dan|to|tego|tam|wtedy|det|den|där|då|der)\b/;

export function dependsOnPrevious(message: string): boolean {
  const n = termSet(message).length;
  if (n > FOLLOW_UP_TERMS) return false;
  if (n === 0 || hasNoTopic(message)) return true;
  const q = normalizeForMatch(message);
  return CONNECTIVE.test(q) || PRONOUN.test(q);
}

/**
 * A message that only asks for a kind of answer ("What is the cost?", "How long?", "opening
 * hours?") names no topic: its topic is the previous question's, even when the words alone find a
 * page (the cheapest plan says "cost" most), so the engine prefers the joined search there.
 */
export function hasNoTopic(message: string): boolean {
  return termSet(message).length === 0 || (asks(message).length > 0 && termSet(withoutAskWords(message)).length === 0);
}
