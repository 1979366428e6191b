/**
 * Why an item of an ingest job failed, in words: the API's per-URL error strings (server
 * domain/knowledge/items, crawl/) are for developers; the owner gets a sentence and keeps the
 * original as detail.
 */
export type ReasonKey =
  | 'allFailed'
  | 'allFailedList'
  | 'someFailed'
  | 'stopped'
  | 'notFound'
  | 'refused'
  | 'slowDown'
  | 'serverError'
  | 'httpStatus'
  | 'robots'
  | 'robotsUnreadable'
  | 'blocked'
  | 'timeout'
  | 'unreachable'
  | 'tooLarge'
  | 'unreadable'
  | 'notDocument'
  | 'outOfScope'
  | 'invalidUrl'
  | 'noCaptions'
  | 'other';

export function reasonOf(error: string): { key: ReasonKey; status?: number; cause?: string } {
  // A whole job's error (ingest-runner finish): its first item's cause, or the job's own stop.
  const first = /^(?:The item failed|Every item failed; the first): (?:https?:\/\/\S+: )?([\s\S]*)$/.exec(error);
  if (first) return /^The item failed/.test(error) ? reasonOf(first[1]) : { key: 'allFailed', cause: first[1] };
  if (/^Every item failed/.test(error)) return { key: 'allFailedList' };
  if (/^\d+ of \d+ items failed/.test(error)) return { key: 'someFailed' };
  if (/^The job stopped/.test(error)) return { key: 'stopped' };
  const http = /^HTTP (\d{3})/.exec(error) ?? /answered HTTP (\d{3})/.exec(error);
  if (/^robots\.txt could not be read/.test(error)) return { key: 'robotsUnreadable' };
  if (http) {
    const status = Number(http[1]);
    if (status === 404 || status === 410) return { key: 'notFound', status };
    if (status === 401 || status === 403) return { key: 'refused', status };
    if (status === 429) return { key: 'slowDown', status };
    if (status >= 500) return { key: 'serverError', status };
    return { key: 'httpStatus', status };
  }
  if (/robots\.txt/.test(error)) return { key: 'robots' };
  if (/^BLOCKED_ADDRESS/.test(error)) return { key: 'blocked' };
  if (/^TIMEOUT|timed? ?out/i.test(error)) return { key: 'timeout' };
  if (/^(NETWORK|ENOTFOUND|ECONNREFUSED|ECONNRESET|EAI_AGAIN|EHOSTUNREACH)/.test(error)) return { key: 'unreachable' };
  if (/^TOO_LARGE|too large|larger than/i.test(error)) return { key: 'tooLarge' };
  if (/^(UNSUPPORTED|MALFORMED)|not a PDF, DOCX/.test(error)) return { key: 'unreadable' };
  if (/^not a readable document/.test(error)) return { key: 'notDocument' };
  if (/outside the crawl scope/.test(error)) return { key: 'outOfScope' };
  if (/not an absolute http\(s\) URL|^INVALID_URL|^UNSUPPORTED_PROTOCOL/.test(error)) return { key: 'invalidUrl' };
  if (/has no captions|captions track is empty/.test(error)) return { key: 'noCaptions' };
  return { key: 'other' };
}
