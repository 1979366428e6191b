/**
 * Starters and follow-ups share one shape (QuickPrompt, FollowUpPrompt) and one set of rules:
 * listed whole by position, appended when no position is given, deleted only with confirmation.
 * starters.ts and followups.ts give each its name and its view.
 */
import type { AuthContext } from '../auth.js';
import { confirmationRequired, notFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import type { Store } from '../ports.js';
import { assertBelowCap, clean, type ResourceDeps } from './common.js';
import type { PromptRecord } from './ports.js';

export interface PromptInput {
  title: string;
  description: string;
  link?: string | null;
  position?: number;
  isEscalationPrompt?: boolean;
}

export class PromptsService<V> {
  constructor(
    private readonly deps: ResourceDeps,
    private readonly kind: 'starters' | 'followups',
    /** The display name in messages ("Starter", "Follow-up"). */
    private readonly noun: string,
    private readonly view: (p: PromptRecord) => V,
  ) {}

  private repo(store: Store = this.deps.store) {
    return store.resources[this.kind];
  }

  async list(auth: AuthContext, chatbotId: string): Promise<V[]> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    return (await this.repo().list(chatbot.id)).map(this.view);
  }

  async get(auth: AuthContext, chatbotId: string, id: string): Promise<V> {
    return this.view(await this.reachOne(auth, chatbotId, id));
  }

  async create(auth: AuthContext, chatbotId: string, input: PromptInput): Promise<V> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    return this.deps.store.transaction(async (s) => {
      const repo = this.repo(s);
      assertBelowCap(this.kind, await repo.count(chatbot.id));
      const at = nowIso();
      const prompt: PromptRecord = {
        id: newId(),
        chatbotId: chatbot.id,
        title: clean(input.title),
        description: clean(input.description),
        link: input.link ?? null,
        isEscalationPrompt: this.kind === 'followups' && input.isEscalationPrompt === true,
        position: input.position ?? ((await repo.maxPosition(chatbot.id)) ?? -1) + 1,
        createdAt: at,
        updatedAt: at,
      };
      await repo.insert(prompt);
      // At most one follow-up escalates: marking a new one unmarks the previous one.
      if (prompt.isEscalationPrompt) await repo.clearEscalation(chatbot.id, prompt.id, at);
      return this.view(prompt);
    });
  }

  async update(auth: AuthContext, chatbotId: string, id: string, patch: Partial<PromptInput>): Promise<V> {
    const prompt = await this.reachOne(auth, chatbotId, id);
    const at = nowIso();
    const changes = {
      ...(patch.title !== undefined && { title: clean(patch.title) }),
      ...(patch.description !== undefined && { description: clean(patch.description) }),
      ...(patch.link !== undefined && { link: patch.link }),
      ...(patch.position !== undefined && { position: patch.position }),
      ...(this.kind === 'followups' &&
        patch.isEscalationPrompt !== undefined && { isEscalationPrompt: patch.isEscalationPrompt }),
    };
    await this.deps.store.transaction(async (s) => {
      await this.repo(s).update(prompt.id, changes, at);
      if (changes.isEscalationPrompt) await this.repo(s).clearEscalation(prompt.chatbotId, prompt.id, at);
    });
    return this.view({ ...prompt, ...changes, updatedAt: at });
  }

  async delete(auth: AuthContext, chatbotId: string, id: string, confirm: boolean): Promise<V> {
    const prompt = await this.reachOne(auth, chatbotId, id);
    if (!confirm) throw confirmationRequired(`Add ?confirm=true to delete this ${this.noun.toLowerCase()}`);
    await this.repo().delete(prompt.id);
    return this.view(prompt);
  }

  private async reachOne(auth: AuthContext, chatbotId: string, id: string): Promise<PromptRecord> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const prompt = await this.repo().get(chatbot.id, id);
    if (!prompt) throw notFound(this.noun);
    return prompt;
  }
}
