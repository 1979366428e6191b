/** The figures of `GET /chatbots/{id}/analytics`, computed from the stored conversations over a range. */
import { type Kysely, sql } from 'kysely';
import type { AnalyticsStore } from '../domain/ports.js';
import type { Database } from './tables.js';

const n = (v: unknown) => Number(v ?? 0);

export function analyticsStore(db: Kysely<Database>): AnalyticsStore {
  return {
    async figures(chatbotId, from, to) {
      const conversations = await db
        .selectFrom('conversations')
        .select((eb) => [
          eb.fn.countAll<number>().as('total'),
          eb.fn.sum<number>(sql`case when status = 'RESOLVED' then 1 else 0 end`).as('resolved_now'),
        ])
        .where('chatbot_id', '=', chatbotId)
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .executeTakeFirstOrThrow();
      const messages = await db
        .selectFrom('messages')
        .select(['author', (eb) => eb.fn.countAll<number>().as('n')])
        .where('chatbot_id', '=', chatbotId)
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .groupBy('author')
        .execute();
      const feedback = await db
        .selectFrom('messages')
        .select(['feedback', (eb) => eb.fn.countAll<number>().as('n')])
        .where('chatbot_id', '=', chatbotId)
        .where('author', '=', 'ai')
        .where('feedback', 'is not', null)
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .groupBy('feedback')
        .execute();
      const events = await db
        .selectFrom('conversation_events')
        .select(['type', (eb) => eb.fn.countAll<number>().as('n')])
        .where('chatbot_id', '=', chatbotId)
        .where('type', 'in', [
          'conversation.escalated',
          'conversation.taken_over',
          'conversation.resolved',
          'conversation.released',
          'lead.captured',
        ])
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .groupBy('type')
        .execute();
      const gaps = await db
        .selectFrom('knowledge_gaps')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('chatbot_id', '=', chatbotId)
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .executeTakeFirstOrThrow();
      const byAuthor = Object.fromEntries(messages.map((m) => [m.author, n(m.n)]));
      const byFeedback = Object.fromEntries(feedback.map((f) => [f.feedback, n(f.n)]));
      const byEvent = Object.fromEntries(events.map((e) => [e.type, n(e.n)]));
      return {
        conversations: n(conversations.total),
        resolvedConversations: n(conversations.resolved_now),
        messages: {
          total: Object.values(byAuthor).reduce((a, b) => a + b, 0),
          visitor: byAuthor.visitor ?? 0,
          ai: byAuthor.ai ?? 0,
          agent: byAuthor.agent ?? 0,
        },
        escalations: byEvent['conversation.escalated'] ?? 0,
        takeOvers: byEvent['conversation.taken_over'] ?? 0,
        handBacks: byEvent['conversation.released'] ?? 0,
        resolutions: byEvent['conversation.resolved'] ?? 0,
        leads: byEvent['lead.captured'] ?? 0,
        feedback: { up: byFeedback.up ?? 0, down: byFeedback.down ?? 0 },
        unansweredQuestions: n(gaps.n),
      };
    },
    async citedSources(chatbotId, from, to, limit) {
      // Sources live as JSON on each answer; count them in the range, newest answers first, bounded.
      const rows = await db
        .selectFrom('messages')
        .select('sources')
        .where('chatbot_id', '=', chatbotId)
        .where('author', '=', 'ai')
        .where('sources', '!=', '[]')
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .orderBy('created_at', 'desc')
        .limit(20_000)
        .execute();
      const counts = new Map<string, { documentId: string; title: string; url: string | null; citations: number }>();
      for (const r of rows) {
        const seen = new Set<string>();
        for (const s of JSON.parse(r.sources) as { documentId: string; title: string; url: string | null }[]) {
          if (seen.has(s.documentId)) continue;
          seen.add(s.documentId);
          const c = counts.get(s.documentId) ?? { documentId: s.documentId, title: s.title, url: s.url, citations: 0 };
          c.citations++;
          counts.set(s.documentId, c);
        }
      }
      return [...counts.values()]
        .sort((a, b) => b.citations - a.citations || a.title.localeCompare(b.title))
        .slice(0, limit);
    },
  };
}
