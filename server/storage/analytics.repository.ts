/** The figures of `GET /chatbots/{id}/analytics`, computed from the stored conversations over a range. */
import { type Kysely, sql } from 'kysely';
import type { AnalyticsBucket, AnalyticsBucketFigures, AnalyticsStore } from '../domain/ports.js';
import type { Database } from './tables.js';

const n = (v: unknown) => Number(v ?? 0);

/**
 * The group of a row's `created_at` (ISO-8601 UTC text on both dialects, so plain string
 * functions do it the same way): its UTC day, its hour, or its quarter hour, which never
 * straddles a midnight of any time zone (every offset in use is a multiple of 15 minutes).
 */
const bucketOf = (bucket: AnalyticsBucket) =>
  bucket === 'utc-day'
    ? sql<string>`substr(created_at, 1, 10)`
    : bucket === 'hour'
      ? sql<string>`substr(created_at, 1, 14) || '00'`
      : sql<string>`substr(created_at, 1, 14) || case when substr(created_at, 15, 2) < '15' then '00' when substr(created_at, 15, 2) < '30' then '15' when substr(created_at, 15, 2) < '45' then '30' else '45' end`;

/**
 * What an AI message was, from the flags its meta (compact JSON.stringify text) carries. A quote
 * inside a JSON string value is escaped, so `"unanswered":true` can only match the key itself.
 */
const answerOf = sql<string>`case when author <> 'ai' then '' when meta like '%"unanswered":true%' then 'refused' when meta like '%"unsure":true%' then 'notSure' when meta like '%"provider":"unavailable"%' or meta like '%"provider":"busy"%' then 'failed' else 'answered' end`;

type AnswerKind = 'answered' | 'notSure' | 'refused' | 'failed';
const kindOf = (meta: Record<string, unknown>): AnswerKind =>
  meta.unanswered === true
    ? 'refused'
    : meta.unsure === true
      ? 'notSure'
      : meta.provider === 'unavailable' || meta.provider === 'busy'
        ? 'failed'
        : 'answered';

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
    async buckets(chatbotId, from, to, bucket) {
      const key = bucketOf(bucket);
      const [conversations, messages, events] = await Promise.all([
        db
          .selectFrom('conversations')
          .select([key.as('k'), (eb) => eb.fn.countAll<number>().as('n')])
          .where('chatbot_id', '=', chatbotId)
          .where('created_at', '>=', from)
          .where('created_at', '<', to)
          .groupBy(key)
          .execute(),
        db
          .selectFrom('messages')
          .select([key.as('k'), 'author', answerOf.as('answer'), (eb) => eb.fn.countAll<number>().as('n')])
          .where('chatbot_id', '=', chatbotId)
          .where('created_at', '>=', from)
          .where('created_at', '<', to)
          .groupBy([key, 'author', answerOf])
          .execute(),
        db
          .selectFrom('conversation_events')
          .select([key.as('k'), 'type', (eb) => eb.fn.countAll<number>().as('n')])
          .where('chatbot_id', '=', chatbotId)
          .where('type', 'in', ['conversation.escalated', 'lead.captured'])
          .where('created_at', '>=', from)
          .where('created_at', '<', to)
          .groupBy([key, 'type'])
          .execute(),
      ]);
      const out = new Map<string, AnalyticsBucketFigures>();
      const at = (k: string) => {
        let b = out.get(k);
        if (!b) {
          b = {
            key: k,
            conversations: 0,
            messages: { total: 0, visitor: 0, ai: 0, agent: 0 },
            answers: { answered: 0, notSure: 0, refused: 0 },
            escalations: 0,
            leads: 0,
          };
          out.set(k, b);
        }
        return b;
      };
      for (const r of conversations) at(r.k).conversations += n(r.n);
      for (const r of messages) {
        const b = at(r.k);
        b.messages.total += n(r.n);
        if (r.author === 'visitor' || r.author === 'ai' || r.author === 'agent') b.messages[r.author] += n(r.n);
        if (r.answer === 'answered' || r.answer === 'notSure' || r.answer === 'refused') b.answers[r.answer] += n(r.n);
      }
      for (const r of events) {
        if (r.type === 'conversation.escalated') at(r.k).escalations += n(r.n);
        else at(r.k).leads += n(r.n);
      }
      return [...out.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    async visitorQuestions(chatbotId, from, to, limit, chars) {
      const [questions, answers] = await Promise.all([
        db
          .selectFrom('messages')
          .select(['id', sql<string>`substr(text, 1, ${chars})`.as('text')])
          .where('chatbot_id', '=', chatbotId)
          .where('author', '=', 'visitor')
          .where('created_at', '>=', from)
          .where('created_at', '<', to)
          .orderBy('created_at', 'desc')
          .limit(limit)
          .execute(),
        // An answer may be written just after the range ends: look a minute past it.
        db
          .selectFrom('messages')
          .select('meta')
          .where('chatbot_id', '=', chatbotId)
          .where('author', '=', 'ai')
          .where('created_at', '>=', from)
          .where('created_at', '<', new Date(Date.parse(to) + 60_000).toISOString())
          .orderBy('created_at', 'desc')
          .limit(limit)
          .execute(),
      ]);
      const answerTo = new Map<string, AnswerKind>();
      for (const a of answers) {
        const meta = JSON.parse(a.meta) as Record<string, unknown>;
        if (typeof meta.questionId === 'string') answerTo.set(meta.questionId, kindOf(meta));
      }
      return questions.map((q) => ({ text: q.text, answer: answerTo.get(q.id) ?? null }));
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
