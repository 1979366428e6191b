/**
 * Instructions and personas share one shape and one rule: any number may exist, one at a time
 * is active (the chatbot's read-only setting `promptId` / `personaId`, set by `/use`).
 * Deleting the active one clears the setting in the same transaction.
 */
import { writeInternalSettings } from '../chatbots.service.js';
import type { AuthContext } from '../auth.js';
import { confirmationRequired, notFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import type { ChatbotRecord, Store } from '../ports.js';
import { assertBelowCap, clean, type ResourceDeps } from './common.js';
import type { DirectivePatch, DirectiveRecord } from './ports.js';

export interface DirectiveInput {
  title: string;
  description?: string;
  instructions: string;
  temperature?: number | null;
}

export class DirectivesService<V> {
  constructor(
    private readonly deps: ResourceDeps,
    private readonly kind: 'instructions' | 'personas',
    private readonly setting: 'promptId' | 'personaId',
    private readonly noun: string,
    private readonly view: (d: DirectiveRecord, active: boolean) => V,
  ) {}

  private repo(store: Store = this.deps.store) {
    return store.resources[this.kind];
  }

  private isActive(chatbot: ChatbotRecord, id: string) {
    return chatbot.settings[this.setting] === id;
  }

  async list(auth: AuthContext, chatbotId: string): Promise<V[]> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    return (await this.repo().list(chatbot.id)).map((d) => this.view(d, this.isActive(chatbot, d.id)));
  }

  async get(auth: AuthContext, chatbotId: string, id: string): Promise<V> {
    const { chatbot, directive } = await this.reachOne(auth, chatbotId, id);
    return this.view(directive, this.isActive(chatbot, directive.id));
  }

  async create(auth: AuthContext, chatbotId: string, input: DirectiveInput): Promise<V> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const at = nowIso();
    const directive: DirectiveRecord = {
      id: newId(),
      chatbotId: chatbot.id,
      title: clean(input.title),
      description: clean(input.description ?? ''),
      instructions: clean(input.instructions),
      temperature: this.kind === 'instructions' ? (input.temperature ?? null) : null,
      createdAt: at,
      updatedAt: at,
    };
    await this.deps.store.transaction(async (s) => {
      assertBelowCap(this.kind, await this.repo(s).count(chatbot.id));
      await this.repo(s).insert(directive);
    });
    return this.view(directive, false);
  }

  async update(auth: AuthContext, chatbotId: string, id: string, patch: Partial<DirectiveInput>): Promise<V> {
    const { chatbot, directive } = await this.reachOne(auth, chatbotId, id);
    const at = nowIso();
    const changes: DirectivePatch = {
      ...(patch.title !== undefined && { title: clean(patch.title) }),
      ...(patch.description !== undefined && { description: clean(patch.description) }),
      ...(patch.instructions !== undefined && { instructions: clean(patch.instructions) }),
      ...(this.kind === 'instructions' && patch.temperature !== undefined && { temperature: patch.temperature }),
    };
    await this.repo().update(directive.id, changes, at);
    return this.view({ ...directive, ...changes, updatedAt: at }, this.isActive(chatbot, directive.id));
  }

  /** Makes it the chatbot's active one (the answer engine uses it from the next answer on). */
  async use(auth: AuthContext, chatbotId: string, id: string): Promise<V> {
    const { chatbot, directive } = await this.reachOne(auth, chatbotId, id);
    await this.deps.store.transaction(async (s) => {
      // Re-read inside the transaction so a settings change made meanwhile is kept.
      const fresh = (await s.chatbots.get(chatbot.id)) ?? chatbot;
      await writeInternalSettings(s, fresh, { [this.setting]: directive.id });
    });
    await this.deps.chatbots.changed(chatbot.id);
    return this.view(directive, true);
  }

  async delete(auth: AuthContext, chatbotId: string, id: string, confirm: boolean): Promise<V> {
    const { chatbot, directive } = await this.reachOne(auth, chatbotId, id);
    if (!confirm) throw confirmationRequired(`Add ?confirm=true to delete this ${this.noun.toLowerCase()}`);
    const wasActive = this.isActive(chatbot, directive.id);
    await this.deps.store.transaction(async (s) => {
      await this.repo(s).delete(directive.id);
      const fresh = await s.chatbots.get(chatbot.id);
      if (fresh && this.isActive(fresh, directive.id)) await writeInternalSettings(s, fresh, { [this.setting]: null });
    });
    await this.deps.chatbots.changed(chatbot.id);
    return this.view(directive, wasActive);
  }

  private async reachOne(auth: AuthContext, chatbotId: string, id: string) {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const directive = await this.repo().get(chatbot.id, id);
    if (!directive) throw notFound(this.noun);
    return { chatbot, directive };
  }
}
