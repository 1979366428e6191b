/**
 * Knowledge gaps: questions the answer engine could not answer from the chatbot's knowledge.
 * The conversation service records them with `recordGap`; the owner lists them and answers one,
 * which saves the answer as a custom response (so the next visitor asking gets it verbatim).
 */
import type { AuthContext } from '../auth.js';
import { confirmationRequired, notFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import type { Store } from '../ports.js';
import type { ResourceDeps } from './common.js';
import { customResponseView, newCustomResponse, type CustomResponseView } from './custom-responses.js';
import type { KnowledgeGapRecord } from './ports.js';

export interface KnowledgeGapView {
  id: string;
  chatbotId: string;
  threadId: string | null;
  messageId: string | null;
  question: string;
  answered: boolean;
  answeredAt: string | null;
  /** The custom response that answers it, once answered. */
  customResponseId: string | null;
  createdAt: string;
}

const gapView = (g: KnowledgeGapRecord): KnowledgeGapView => ({
  id: g.id,
  chatbotId: g.chatbotId,
  threadId: g.conversationId,
  messageId: g.messageId,
  question: g.question,
  answered: g.answeredAt !== null,
  answeredAt: g.answeredAt,
  customResponseId: g.customResponseId,
  createdAt: g.createdAt,
});

/** Longest question kept (a custom response's question has the same limit). */
export const MAX_GAP_QUESTION = 2000;

/** Records one unanswered question (pass the transaction's store to write it with the answer). */
export async function recordGap(
  store: Store,
  input: { chatbotId: string; conversationId: string | null; messageId: string | null; question: string },
): Promise<KnowledgeGapRecord> {
  const gap: KnowledgeGapRecord = {
    id: newId(),
    chatbotId: input.chatbotId,
    conversationId: input.conversationId,
    messageId: input.messageId,
    question: input.question.trim().slice(0, MAX_GAP_QUESTION),
    customResponseId: null,
    answeredAt: null,
    createdAt: nowIso(),
  };
  await store.resources.knowledgeGaps.insert(gap);
  return gap;
}

/** Another answer pointed the gap at its custom response while this one was being saved. */
class AnsweredMeanwhile extends Error {}

/** Runs after a gap was answered and committed (the visitor gateway posts the answer into the gap's conversation). */
export type GapAnsweredHook = (gap: KnowledgeGapRecord, answer: string, auth: AuthContext) => Promise<unknown>;

export class KnowledgeGapsService {
  constructor(
    private readonly deps: ResourceDeps,
    private readonly onAnswered?: GapAnsweredHook,
  ) {}

  async list(auth: AuthContext, chatbotId: string, q: { limit: number; cursor?: string; answered?: boolean }) {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const list = q.answered === undefined ? 'knowledge-gaps' : `knowledge-gaps:${q.answered}`;
    const page = await this.deps.store.resources.knowledgeGaps.page(
      chatbot.id,
      { limit: q.limit, after: this.deps.cursors.decode(list, q.cursor) },
      { answered: q.answered },
    );
    return { knowledgeGaps: page.items.map(gapView), nextCursor: this.deps.cursors.encode(list, page.next) };
  }

  async get(auth: AuthContext, chatbotId: string, id: string): Promise<KnowledgeGapView> {
    return gapView(await this.reachOne(auth, chatbotId, id));
  }

  /**
   * Saves `answer` as a custom response to the gap's question and marks the gap answered.
   * Answering again updates that custom response (or makes a new one if it was deleted).
   */
  async answer(
    auth: AuthContext,
    chatbotId: string,
    id: string,
    answer: string,
  ): Promise<{ knowledgeGap: KnowledgeGapView; customResponse: CustomResponseView }> {
    // Two answers at once (two agents, a double click) must not each make a custom response to
    // the question: the gap is pointed at its response only if no other answer did meanwhile,
    // else the answer is given again against the response that other answer made.
    const result = await this.answerOnce(await this.reachOne(auth, chatbotId, id), answer);
    if (this.onAnswered) await this.onAnswered(result.gap, answer, auth);
    return { knowledgeGap: result.knowledgeGap, customResponse: result.customResponse };
  }

  private async answerOnce(first: KnowledgeGapRecord, answer: string) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.deps.store.transaction(async (s) => {
          const gap = await s.resources.knowledgeGaps.get(first.chatbotId, first.id);
          if (!gap) throw notFound('Knowledge gap');
          return { gap, ...(await this.saveAnswer(s, gap, answer)) };
        });
      } catch (err) {
        if (!(err instanceof AnsweredMeanwhile) || attempt >= 3) throw err;
      }
    }
  }

  private async saveAnswer(s: Store, gap: KnowledgeGapRecord, answer: string) {
    const at = nowIso();
    const existing = gap.customResponseId
      ? await s.resources.customResponses.get(gap.chatbotId, gap.customResponseId)
      : null;
    let response;
    if (existing) {
      response = { ...existing, answer: answer.trim(), updatedAt: at };
      await s.resources.customResponses.update(existing.id, { answer: response.answer }, at);
    } else {
      response = newCustomResponse(gap.chatbotId, gap.question, answer);
      await s.resources.customResponses.insert(response);
    }
    if (!(await s.resources.knowledgeGaps.markAnswered(gap.id, response.id, at, gap.customResponseId)))
      throw new AnsweredMeanwhile();
    return {
      knowledgeGap: gapView({ ...gap, customResponseId: response.id, answeredAt: at }),
      customResponse: customResponseView(response),
    };
  }

  async delete(auth: AuthContext, chatbotId: string, id: string, confirm: boolean): Promise<KnowledgeGapView> {
    const gap = await this.reachOne(auth, chatbotId, id);
    if (!confirm) throw confirmationRequired('Add ?confirm=true to delete this knowledge gap');
    await this.deps.store.resources.knowledgeGaps.delete(gap.id);
    return gapView(gap);
  }

  private async reachOne(auth: AuthContext, chatbotId: string, id: string): Promise<KnowledgeGapRecord> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const gap = await this.deps.store.resources.knowledgeGaps.get(chatbot.id, id);
    if (!gap) throw notFound('Knowledge gap');
    return gap;
  }
}
