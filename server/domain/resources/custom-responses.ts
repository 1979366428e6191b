/**
 * Custom responses: a question and the answer given verbatim when a visitor asks it (the answer
 * engine matches them before generating anything). Also made by answering a knowledge gap.
 */
import type { AuthContext } from '../auth.js';
import { confirmationRequired, notFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { clean, type ResourceDeps } from './common.js';
import type { CustomResponseRecord } from './ports.js';

/** A custom response as the API shows it: every field of its record. */
export type CustomResponseView = Pick<
  CustomResponseRecord,
  'id' | 'chatbotId' | 'question' | 'answer' | 'createdAt' | 'updatedAt'
>;

export const customResponseView = (r: CustomResponseRecord): CustomResponseView => ({
  id: r.id,
  chatbotId: r.chatbotId,
  question: r.question,
  answer: r.answer,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export const newCustomResponse = (chatbotId: string, question: string, answer: string): CustomResponseRecord => {
  const at = nowIso();
  return { id: newId(), chatbotId, question: clean(question), answer: clean(answer), createdAt: at, updatedAt: at };
};

export class CustomResponsesService {
  constructor(private readonly deps: ResourceDeps) {}

  async list(auth: AuthContext, chatbotId: string, limit: number, cursor?: string) {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const page = await this.deps.store.resources.customResponses.page(chatbot.id, {
      limit,
      after: this.deps.cursors.decode('custom-responses', cursor),
    });
    return {
      customResponses: page.items.map(customResponseView),
      nextCursor: this.deps.cursors.encode('custom-responses', page.next),
    };
  }

  async get(auth: AuthContext, chatbotId: string, id: string): Promise<CustomResponseView> {
    return customResponseView(await this.reachOne(auth, chatbotId, id));
  }

  async create(
    auth: AuthContext,
    chatbotId: string,
    input: { question: string; answer: string },
  ): Promise<CustomResponseView> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const response = newCustomResponse(chatbot.id, input.question, input.answer);
    await this.deps.store.resources.customResponses.insert(response);
    return customResponseView(response);
  }

  async update(
    auth: AuthContext,
    chatbotId: string,
    id: string,
    patch: { question?: string; answer?: string },
  ): Promise<CustomResponseView> {
    const response = await this.reachOne(auth, chatbotId, id);
    const at = nowIso();
    const changes = {
      ...(patch.question !== undefined && { question: clean(patch.question) }),
      ...(patch.answer !== undefined && { answer: clean(patch.answer) }),
    };
    await this.deps.store.resources.customResponses.update(response.id, changes, at);
    return customResponseView({ ...response, ...changes, updatedAt: at });
  }

  async delete(auth: AuthContext, chatbotId: string, id: string, confirm: boolean): Promise<CustomResponseView> {
    const response = await this.reachOne(auth, chatbotId, id);
    if (!confirm) throw confirmationRequired('Add ?confirm=true to delete this custom response');
    await this.deps.store.resources.customResponses.delete(response.id);
    return customResponseView(response);
  }

  private async reachOne(auth: AuthContext, chatbotId: string, id: string): Promise<CustomResponseRecord> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const response = await this.deps.store.resources.customResponses.get(chatbot.id, id);
    if (!response) throw notFound('Custom response');
    return response;
  }
}
