/**
 * The answer engine's read-only view of a chatbot's resources (domain/answers/ports.ts
 * AnswerContextStore): the active instruction and persona, custom responses and the owner's
 * follow-ups. Every read is scoped to the chatbot, so an id of another chatbot finds nothing.
 */
import type { Kysely } from 'kysely';
import type { AnswerContextStore } from '../domain/answers/ports.js';
import type { Database } from './tables.js';

/** More custom responses than this are not matched against (oldest first are kept). */
const MAX_CUSTOM_RESPONSES = 5000;
const MAX_FOLLOWUPS = 50;

export const answerContextRepository = (db: Kysely<Database>): AnswerContextStore => ({
  async instruction(chatbotId, id) {
    const row = await db
      .selectFrom('instructions')
      .select(['id', 'title', 'instructions', 'temperature'])
      .where('id', '=', id)
      .where('chatbot_id', '=', chatbotId)
      .executeTakeFirst();
    return row
      ? {
          id: row.id,
          title: row.title,
          instructions: row.instructions,
          temperature: row.temperature === null ? null : Number(row.temperature),
        }
      : null;
  },
  async persona(chatbotId, id) {
    const row = await db
      .selectFrom('personas')
      .select(['id', 'title', 'instructions'])
      .where('id', '=', id)
      .where('chatbot_id', '=', chatbotId)
      .executeTakeFirst();
    return row ?? null;
  },
  async customResponses(chatbotId) {
    return db
      .selectFrom('custom_responses')
      .select(['id', 'question', 'answer'])
      .where('chatbot_id', '=', chatbotId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(MAX_CUSTOM_RESPONSES)
      .execute();
  },
  async followUps(chatbotId) {
    const rows = await db
      .selectFrom('followups')
      .select(['title', 'description', 'link', 'is_escalation_prompt'])
      .where('chatbot_id', '=', chatbotId)
      .orderBy('position')
      .orderBy('created_at')
      .orderBy('id')
      .limit(MAX_FOLLOWUPS)
      .execute();
    return rows.map((r) => ({
      title: r.title,
      description: r.description,
      link: r.link,
      isEscalationPrompt: Number(r.is_escalation_prompt) === 1,
    }));
  },
  async chunkQuestions(chatbotId, chunkIds, others = 0) {
    const out = new Map<number, string[]>();
    const ids = [...new Set(chunkIds.filter((id) => Number.isInteger(id)))];
    const rows = ids.length
      ? await db
          .selectFrom('chunk_questions')
          .select(['chunk_id', 'questions'])
          .where('chatbot_id', '=', chatbotId)
          .where('chunk_id', 'in', ids)
          .execute()
      : [];
    if (others > 0) {
      let more = db.selectFrom('chunk_questions').select(['chunk_id', 'questions']).where('chatbot_id', '=', chatbotId);
      if (ids.length) more = more.where('chunk_id', 'not in', ids);
      rows.push(...(await more.orderBy('chunk_id').limit(others).execute()));
    }
    for (const r of rows) {
      const parsed = JSON.parse(r.questions) as unknown;
      if (Array.isArray(parsed))
        out.set(
          Number(r.chunk_id),
          parsed.filter((q): q is string => typeof q === 'string'),
        );
    }
    return out;
  },
  async knowledgeVersion(chatbotId) {
    const row = await db
      .selectFrom('chunks')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('id').as('last')])
      .where('chatbot_id', '=', chatbotId)
      .executeTakeFirst();
    return `${Number(row?.n ?? 0)}:${Number(row?.last ?? 0)}`;
  },
  async knowledgeTexts(chatbotId, afterId, limit) {
    const rows = await db
      .selectFrom('chunks')
      .select(['id', 'title', 'heading', 'text'])
      .where('chatbot_id', '=', chatbotId)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, id: Number(r.id) }));
  },
});
