/**
 * A chatbot's analytics over a date range: conversations, messages by author, escalations,
 * take-overs, hand-backs, resolutions, leads, answer feedback, unanswered questions (knowledge
 * gaps) and the most cited sources. Counts of changes come from the conversation events, so
 * a conversation escalated twice counts twice, in the range in which it happened.
 */
import type { AuthContext } from './auth.js';
import type { ChatbotsService } from './chatbots.service.js';
import { validationFailed } from './errors.js';
import { requireFeature } from './plans.js';
import type { AnalyticsStore } from './ports.js';

const DAY = 86_400_000;
const MAX_RANGE_DAYS = 366;

export class AnalyticsService {
  constructor(
    private readonly store: AnalyticsStore,
    private readonly chatbots: ChatbotsService,
  ) {}

  async get(auth: AuthContext, chatbotId: string, range: { from?: string; to?: string }) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    requireFeature(auth.account, 'analytics');
    const to = range.to ? new Date(range.to) : new Date();
    const from = range.from ? new Date(range.from) : new Date(to.getTime() - 30 * DAY);
    if (from > to) throw validationFailed([{ path: ['from'], message: 'must not be after `to`' }]);
    if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY)
      throw validationFailed([{ path: ['from'], message: `the range is at most ${MAX_RANGE_DAYS} days` }]);
    const [f, t] = [from.toISOString(), to.toISOString()];
    const [figures, topSources] = await Promise.all([
      this.store.figures(chatbot.id, f, t),
      this.store.citedSources(chatbot.id, f, t, 10),
    ]);
    const rated = figures.feedback.up + figures.feedback.down;
    return {
      chatbotId: chatbot.id,
      range: { from: f, to: t },
      ...figures,
      satisfaction: rated ? Math.round((figures.feedback.up / rated) * 1000) / 1000 : null,
      topSources,
    };
  }
}
