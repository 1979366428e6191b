/**
 * Calendar days of a time zone over a range, and the visitor questions asked most: the parts of
 * `GET /chatbots/{id}/analytics` that are worked out after the database grouped the rows.
 */
import { normaliseQuestion } from '../../shared/questions.js';
import type { AnalyticsBucketFigures } from './ports.js';

/** One calendar day's figures: an `AnalyticsBucketFigures` keyed by its day in the requested time zone. */
export type DayFigures = Omit<AnalyticsBucketFigures, 'key'> & {
  /** The calendar day in the requested time zone, `YYYY-MM-DD`. */
  date: string;
};

/**
 * An IANA time zone's name as ICU spells it (`europe/paris` → `Europe/Paris`), or null when it
 * is none. A newer name ICU files under an older one (Asia/Kolkata, Asia/Calcutta) stays as given.
 */
export function canonicalTimeZone(name: string): string | null {
  try {
    const known = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    return known.toLowerCase() === name.toLowerCase() ? known : name;
  } catch {
    return null;
  }
}

/**
 * Whether `timeZone` is a whole number of hours from UTC over [from, to), so hourly groups never
 * straddle its midnights (checked at every UTC midnight and noon: offsets change at most twice a year).
 */
export function wholeHours(timeZone: string, from: Date, to: Date): boolean {
  const format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
  const HALF_DAY = 43_200_000;
  for (let t = from.getTime() - (from.getTime() % HALF_DAY); t <= to.getTime(); t += HALF_DAY) {
    const name = format.formatToParts(new Date(t)).find((p) => p.type === 'timeZoneName')?.value ?? '';
    if (/:(?!00)\d\d/.test(name)) return false; // GMT+05:30, GMT+05:45; GMT and GMT-04:00 are whole
  }
  return true;
}

/** Maps an instant to its calendar day in `timeZone`, `YYYY-MM-DD`. */
export function dayIn(timeZone: string): (instant: Date) => string {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    calendar: 'gregory',
    numberingSystem: 'latn',
  });
  return (instant) => {
    const p = Object.fromEntries(format.formatToParts(instant).map((x) => [x.type, x.value]));
    return `${p.year}-${p.month}-${p.day}`;
  };
}

/** Every calendar day from `first` to `last` (both `YYYY-MM-DD`, included). */
export function daysBetween(first: string, last: string): string[] {
  const out: string[] = [];
  const [y, m, d] = first.split('-').map(Number);
  for (let i = 0; ; i++) {
    const day = new Date(Date.UTC(y, m - 1, d + i)).toISOString().slice(0, 10);
    if (day > last) return out;
    out.push(day);
  }
}

const empty = (date: string): DayFigures => ({
  date,
  conversations: 0,
  messages: { total: 0, visitor: 0, ai: 0, agent: 0 },
  answers: { answered: 0, notSure: 0, refused: 0 },
  escalations: 0,
  leads: 0,
});

/**
 * Folds the database's groups (UTC days, or quarter hours keyed `YYYY-MM-DDTHH:MM` in UTC) into
 * the calendar days of `timeZone` that the range [from, to) touches, empty days included.
 */
export function foldDays(buckets: AnalyticsBucketFigures[], from: Date, to: Date, timeZone: string): DayFigures[] {
  const day = dayIn(timeZone);
  const last = to.getTime() > from.getTime() ? new Date(to.getTime() - 1) : from;
  const days = new Map(daysBetween(day(from), day(last)).map((d) => [d, empty(d)]));
  for (const b of buckets) {
    const date = b.key.length === 10 ? b.key : day(new Date(`${b.key}:00Z`));
    const f = days.get(date);
    if (!f) continue; // cannot happen: every row is inside the range
    f.conversations += b.conversations;
    for (const k of ['total', 'visitor', 'ai', 'agent'] as const) f.messages[k] += b.messages[k];
    for (const k of ['answered', 'notSure', 'refused'] as const) f.answers[k] += b.answers[k];
    f.escalations += b.escalations;
    f.leads += b.leads;
  }
  return [...days.values()];
}

export interface TopQuestion {
  /** The newest wording asked, whitespace collapsed. */
  question: string;
  count: number;
  /** How many of them the AI answered (a hedged "not sure" answer counts; a refusal does not). */
  answered: number;
}

/** The questions asked most, most first (ties: the newest first), at most `limit`. */
export function topQuestions(
  asked: { text: string; answer: 'answered' | 'notSure' | 'refused' | 'failed' | null }[],
  limit: number,
): TopQuestion[] {
  const counts = new Map<string, TopQuestion & { newest: number }>();
  asked.forEach((q, i) => {
    const key = normaliseQuestion(q.text);
    if (!key) return;
    let c = counts.get(key);
    if (!c) {
      c = { question: q.text.replace(/\s+/gu, ' ').trim(), count: 0, answered: 0, newest: i };
      counts.set(key, c);
    }
    c.count++;
    if (q.answer === 'answered' || q.answer === 'notSure') c.answered++;
  });
  return [...counts.values()]
    .sort((a, b) => b.count - a.count || a.newest - b.newest)
    .slice(0, limit)
    .map(({ question, count, answered }) => ({ question, count, answered }));
}
