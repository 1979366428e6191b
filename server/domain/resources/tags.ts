/**
 * Tags label conversations. A name is unique within its chatbot, without regard to case; a
 * duplicate is 400 VALIDATION_FAILED naming the field. Deleting a tag takes it off every
 * conversation.
 */
import type { AuthContext } from '../auth.js';
import { confirmationRequired, notFound, validationFailed } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { assertBelowCap, clean, type ResourceDeps } from './common.js';
import type { TagRecord } from './ports.js';

export interface TagView {
  id: string;
  chatbotId: string;
  name: string;
  color: string | null;
  /** Conversations carrying it. */
  conversationCount: number;
  createdAt: string;
  updatedAt: string;
}

const tagView = (t: TagRecord, conversationCount: number): TagView => ({
  id: t.id,
  chatbotId: t.chatbotId,
  name: t.name,
  color: t.color,
  conversationCount,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
});

const nameTaken = (name: string) =>
  validationFailed(
    [{ path: ['name'], message: `is already the name of a tag of this chatbot ("${name}")` }],
    `A tag named "${name}" already exists in this chatbot`,
  );

export class TagsService {
  constructor(private readonly deps: ResourceDeps) {}

  private get repo() {
    return this.deps.store.resources.tags;
  }

  async list(auth: AuthContext, chatbotId: string): Promise<TagView[]> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const tags = await this.repo.list(chatbot.id);
    const counts = await this.repo.conversationCounts(tags.map((t) => t.id));
    return tags.map((t) => tagView(t, counts.get(t.id) ?? 0));
  }

  async get(auth: AuthContext, chatbotId: string, id: string): Promise<TagView> {
    return this.withCount(await this.reachOne(auth, chatbotId, id));
  }

  async create(auth: AuthContext, chatbotId: string, input: { name: string; color?: string | null }): Promise<TagView> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const at = nowIso();
    const tag: TagRecord = {
      id: newId(),
      chatbotId: chatbot.id,
      name: clean(input.name),
      color: input.color ?? null,
      createdAt: at,
      updatedAt: at,
    };
    assertBelowCap('tags', await this.repo.count(chatbot.id));
    const existing = await this.repo.byName(chatbot.id, tag.name);
    if (existing) throw nameTaken(existing.name);
    // The unique index settles a race between two creates of the same name.
    if (!(await this.repo.insert(tag))) throw nameTaken(tag.name);
    return tagView(tag, 0);
  }

  async update(
    auth: AuthContext,
    chatbotId: string,
    id: string,
    patch: { name?: string; color?: string | null },
  ): Promise<TagView> {
    const tag = await this.reachOne(auth, chatbotId, id);
    const changes = {
      ...(patch.name !== undefined && { name: clean(patch.name) }),
      ...(patch.color !== undefined && { color: patch.color }),
    };
    if (changes.name !== undefined) {
      const existing = await this.repo.byName(tag.chatbotId, changes.name);
      if (existing && existing.id !== tag.id) throw nameTaken(existing.name);
    }
    const at = nowIso();
    if (!(await this.repo.update(tag.id, changes, at))) throw nameTaken(changes.name ?? tag.name);
    return this.withCount({ ...tag, ...changes, updatedAt: at });
  }

  async delete(auth: AuthContext, chatbotId: string, id: string, confirm: boolean): Promise<TagView> {
    const tag = await this.reachOne(auth, chatbotId, id);
    if (!confirm)
      throw confirmationRequired('Add ?confirm=true to delete this tag; it is taken off every conversation');
    const view = await this.withCount(tag);
    await this.repo.delete(tag.id);
    return view;
  }

  private async withCount(tag: TagRecord): Promise<TagView> {
    return tagView(tag, (await this.repo.conversationCounts([tag.id])).get(tag.id) ?? 0);
  }

  private async reachOne(auth: AuthContext, chatbotId: string, id: string): Promise<TagRecord> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const tag = await this.repo.get(chatbot.id, id);
    if (!tag) throw notFound('Tag');
    return tag;
  }
}
