/**
 * A chatbot's analytics over a date range: conversations, messages by author, escalations,
 * take-overs, hand-backs, resolutions, leads, answer feedback, unanswered questions (knowledge
 * gaps), the most cited sources, the questions visitors asked most, and the same figures per
 * calendar day of a time zone (UTC unless asked). Counts of changes come from the conversation
 * events, so a conversation escalated twice counts twice, in the range in which it happened.
 */
import { canonicalTimeZone, foldDays, topQuestions, wholeHours } from './analytics-days.js';
import type { AuthContext } from './auth.js';
import type { ChatbotsService } from './chatbots.service.js';
import { validationFailed } from './errors.js';
import { requireFeature } from './plans.js';
import type { AnalyticsStore } from './ports.js';

const DAY = 86_400_000;
const MAX_RANGE_DAYS = 366;
/** Top questions are counted over the range's newest visitor messages, this many at most, cut to this length. */
const QUESTIONS_SCANNED = 20_000;
const QUESTION_CHARS = 300;
const TOP_QUESTIONS = 10;

export class AnalyticsService {
  constructor(
    private readonly store: AnalyticsStore,
    private readonly chatbots: ChatbotsService,
  ) {}

  async get(auth: AuthContext, chatbotId: string, range: { from?: string; to?: string; timezone?: string }) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    requireFeature(auth.account, 'analytics');
    const timezone = range.timezone === undefined ? 'UTC' : canonicalTimeZone(range.timezone);
    if (!timezone)
      throw validationFailed([{ path: ['timezone'], message: 'must be an IANA time zone, e.g. Europe/Paris' }]);
    const to = range.to ? new Date(range.to) : new Date();
    const from = range.from ? new Date(range.from) : new Date(to.getTime() - 30 * DAY);
    if (from > to) throw validationFailed([{ path: ['from'], message: 'must not be after `to`' }]);
    if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY)
      throw validationFailed([{ path: ['from'], message: `the range is at most ${MAX_RANGE_DAYS} days` }]);
    const [f, t] = [from.toISOString(), to.toISOString()];
    // The coarsest grouping that cannot straddle the zone's midnights: fewer groups, faster.
    const bucket =
      timezone === 'UTC' || timezone === 'Etc/UTC'
        ? 'utc-day'
        : wholeHours(timezone, from, to)
          ? 'hour'
          : 'quarter-hour';
    const [figures, topSources, buckets, asked] = await Promise.all([
      this.store.figures(chatbot.id, f, t),
      this.store.citedSources(chatbot.id, f, t, 10),
      this.store.buckets(chatbot.id, f, t, bucket),
      this.store.visitorQuestions(chatbot.id, f, t, QUESTIONS_SCANNED, QUESTION_CHARS),
    ]);
    const rated = figures.feedback.up + figures.feedback.down;
    const days = foldDays(buckets, from, to, timezone);
    const answers = { answered: 0, notSure: 0, refused: 0 };
    for (const d of days) for (const k of ['answered', 'notSure', 'refused'] as const) answers[k] += d.answers[k];
    return {
      chatbotId: chatbot.id,
      range: { from: f, to: t },
      timezone,
      ...figures,
      answers,
      satisfaction: rated ? Math.round((figures.feedback.up / rated) * 1000) / 1000 : null,
      topSources,
      topQuestions: topQuestions(asked, TOP_QUESTIONS),
      days,
    };
  }
}
