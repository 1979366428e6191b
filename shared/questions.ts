/**
 * A question as it is counted: compatibility forms folded, lower case, apostrophes dropped (so
 * "Where's" and "wheres" meet), other punctuation and symbols a space, whitespace collapsed.
 * The API's top questions and the console's unanswered ones group by it, so both count alike.
 */
export function normaliseQuestion(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['\u2019\u02bc]/gu, '')
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}
