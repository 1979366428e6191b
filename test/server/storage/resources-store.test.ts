/**
 * The resources repository (domain/resources/ports.ts) run unchanged on SQLite and PostgreSQL:
 * ordering, chatbot scoping of every read, the escalation flag, case-insensitive tag names and
 * the unique index, tag removal from conversations, members with their users and role changes,
 * the member keyset over chatbot_members, lead and gap pages with their filters.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newId } from '../../../server/domain/ids.js';
import type { ChatbotRecord, Page, Store, UserRecord } from '../../../server/domain/ports.js';
import type { PromptRecord } from '../../../server/domain/resources/ports.js';
import type { DatabaseHandle } from '../../../server/storage/dialects/index.js';
import { describeOnDialects } from '../../helpers/dialects.js';
import { openTestDatabase } from '../../helpers/database.js';

const at = (n: number) => new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString();

async function allPages<T>(fetch: (after: Page<T>['next']) => Promise<Page<T>>): Promise<T[]> {
  const out: T[] = [];
  let after: Page<T>['next'] = null;
  for (let i = 0; i < 100; i++) {
    const page = await fetch(after);
    out.push(...page.items);
    if (!page.next) return out;
    after = page.next;
  }
  throw new Error('pagination did not end');
}

describeOnDialects('resources store on %s', (dialect) => {
  let database: DatabaseHandle;
  let store: Store;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const opened = await openTestDatabase(dialect);
    ({ database, store } = opened);
    cleanup = () => opened.close();
  });
  afterAll(() => cleanup?.());

  /** A fresh account with its owner and `n` chatbots. */
  async function tenant(n = 1): Promise<{ owner: UserRecord; bots: ChatbotRecord[] }> {
    const accountId = newId();
    await store.accounts.insert({
      id: accountId,
      name: 'a',
      plan: {
        name: 't',
        maxChatbots: 99,
        maxPages: 9,
        webhooks: true,
        analytics: true,
        brandingRemoval: true,
        active: true,
      },
      createdAt: at(0),
      updatedAt: at(0),
    });
    const owner: UserRecord = {
      id: newId(),
      accountId,
      email: `${newId().toLowerCase()}@x.test`,
      name: null,
      role: 'owner',
      createdAt: at(0),
    };
    await store.users.insert(owner);
    const bots: ChatbotRecord[] = [];
    for (let i = 0; i < n; i++) {
      const bot: ChatbotRecord = {
        id: newId(),
        accountId,
        createdById: owner.id,
        title: `b${i}`,
        description: '',
        settings: {},
        createdAt: at(i),
        updatedAt: at(i),
      };
      await store.chatbots.insert(bot);
      bots.push(bot);
    }
    return { owner, bots };
  }

  const prompt = (chatbotId: string, over: Partial<PromptRecord> = {}): PromptRecord => ({
    id: newId(),
    chatbotId,
    title: 't',
    description: 'd',
    link: null,
    isEscalationPrompt: false,
    position: 0,
    createdAt: at(0),
    updatedAt: at(0),
    ...over,
  });

  test('prompts: order by position then age, scoped reads, max position, the escalation flag', async () => {
    const {
      bots: [bot, other],
    } = await tenant(2);
    const a = prompt(bot.id, { position: 2, createdAt: at(1) });
    const b = prompt(bot.id, { position: 0, createdAt: at(2) });
    const c = prompt(bot.id, { position: 2, createdAt: at(0), isEscalationPrompt: true });
    for (const p of [a, b, c]) await store.resources.followups.insert(p);
    expect((await store.resources.followups.list(bot.id)).map((p) => p.id)).toEqual([b.id, c.id, a.id]);
    expect(await store.resources.followups.maxPosition(bot.id)).toBe(2);
    expect(await store.resources.followups.maxPosition(other.id)).toBeNull();
    expect(await store.resources.followups.count(bot.id)).toBe(3);
    expect(await store.resources.followups.get(other.id, a.id)).toBeNull();
    expect(await store.resources.starters.get(bot.id, a.id)).toBeNull();

    await store.resources.followups.update(a.id, { isEscalationPrompt: true, link: 'https://x.test' }, at(5));
    await store.resources.followups.clearEscalation(bot.id, a.id, at(5));
    const after = await store.resources.followups.list(bot.id);
    expect(after.filter((p) => p.isEscalationPrompt).map((p) => p.id)).toEqual([a.id]);
    expect(after.find((p) => p.id === a.id)).toMatchObject({ link: 'https://x.test', updatedAt: at(5) });
    await store.resources.followups.delete(a.id);
    expect(await store.resources.followups.count(bot.id)).toBe(2);
  });

  test('directives: newest first, temperature as a number or null', async () => {
    const {
      bots: [bot],
    } = await tenant();
    const base = { chatbotId: bot.id, title: 't', description: '', instructions: 'i', updatedAt: at(0) };
    await store.resources.instructions.insert({ ...base, id: 'i1', temperature: 0.29, createdAt: at(1) });
    await store.resources.instructions.insert({ ...base, id: 'i2', temperature: null, createdAt: at(2) });
    const list = await store.resources.instructions.list(bot.id);
    expect(list.map((d) => [d.id, d.temperature])).toEqual([
      ['i2', null],
      ['i1', 0.29],
    ]);
    await store.resources.instructions.update('i2', { temperature: 1 }, at(3));
    expect((await store.resources.instructions.get(bot.id, 'i2'))!.temperature).toBe(1);
    expect(await store.resources.personas.get(bot.id, 'i2')).toBeNull();
  });

  test('tags: case-insensitive lookup, the unique index reported as false, removal from conversations', async () => {
    const {
      bots: [bot, other],
    } = await tenant(2);
    const tag = { id: newId(), chatbotId: bot.id, name: 'Billing', color: null, createdAt: at(0), updatedAt: at(0) };
    expect(await store.resources.tags.insert(tag)).toBe(true);
    expect((await store.resources.tags.byName(bot.id, 'BILLING'))?.id).toBe(tag.id);
    expect(await store.resources.tags.byName(other.id, 'billing')).toBeNull();
    expect(await store.resources.tags.insert({ ...tag, id: newId() })).toBe(false);
    expect(await store.resources.tags.insert({ ...tag, id: newId(), chatbotId: other.id })).toBe(true);
    const second = { ...tag, id: newId(), name: 'Sales' };
    await store.resources.tags.insert(second);
    expect(await store.resources.tags.update(second.id, { name: 'Billing' }, at(1))).toBe(false);
    expect((await store.resources.tags.get(bot.id, second.id))!.name).toBe('Sales');
    expect((await store.resources.tags.list(bot.id)).map((t) => t.name)).toEqual(['Billing', 'Sales']);

    const conversationId = newId();
    await database.db
      .insertInto('conversations')
      .values({
        id: conversationId,
        chatbot_id: bot.id,
        chat_user_id: null,
        status: 'OPEN',
        mode: 'AI',
        agent_id: null,
        webhook_url: null,
        webhook_token: null,
        last_message_at: null,
        created_at: at(0),
        updated_at: at(0),
        ended_at: null,
      })
      .execute();
    await database.db
      .insertInto('conversation_tags')
      .values([
        { conversation_id: conversationId, tag_id: tag.id },
        { conversation_id: conversationId, tag_id: second.id },
      ])
      .execute();
    expect(Object.fromEntries(await store.resources.tags.conversationCounts([tag.id, second.id]))).toEqual({
      [tag.id]: 1,
      [second.id]: 1,
    });
    await store.resources.tags.delete(tag.id);
    const left = await database.db
      .selectFrom('conversation_tags')
      .select('tag_id')
      .where('conversation_id', '=', conversationId)
      .execute();
    expect(left.map((r) => r.tag_id)).toEqual([second.id]);
  });

  test('members: joined with users, role changes mirrored, and the member keyset of chatbots', async () => {
    const { owner, bots } = await tenant(5);
    const user: UserRecord = {
      id: newId(),
      accountId: owner.accountId,
      email: 'm@x.test',
      name: 'M',
      role: 'member',
      createdAt: at(0),
    };
    await store.users.insert(user);
    // Added in the order 3, 0, 4, 1 (not creation order); 2 never; two share a timestamp.
    const adds: [number, number][] = [
      [3, 10],
      [0, 11],
      [4, 12],
      [1, 12],
    ];
    // Lower-case ids order the same under any collation (the tie is broken by id, descending).
    const memberIds = ['ma', 'mb', 'mc', 'md'].map(
      (x) =>
        `${x}-${newId()
          .toLowerCase()
          .replace(/[^a-z0-9]/g, '')}`,
    );
    for (const [k, [i, s]] of adds.entries()) {
      const id = memberIds[k];
      await store.resources.members.insert({
        id,
        chatbotId: bots[i].id,
        userId: user.id,
        role: 'member',
        invitedById: owner.id,
        createdAt: at(s),
      });
    }
    const listed = await store.resources.members.list(bots[3].id);
    expect(listed).toEqual([
      {
        member: expect.objectContaining({ userId: user.id, role: 'member' }),
        user: expect.objectContaining({ id: user.id, email: 'm@x.test', name: 'M', role: 'member' }),
      },
    ]);
    expect(await store.resources.members.byUser(bots[2].id, user.id)).toBeNull();
    expect((await store.resources.members.userByEmail(owner.accountId, 'M@X.TEST'))?.id).toBe(user.id);
    expect(await store.resources.members.userByEmail(newId(), 'm@x.test')).toBeNull();

    for (const limit of [1, 2, 10]) {
      const all = await allPages((after) => store.chatbots.memberPage(user.id, { limit, after }, null));
      expect(all.map((c) => c.id)).toEqual([bots[1].id, bots[4].id, bots[0].id, bots[3].id]);
    }
    expect(
      (await store.chatbots.memberPage(user.id, { limit: 10, after: null }, [bots[0].id, bots[2].id])).items.map(
        (c) => c.id,
      ),
    ).toEqual([bots[0].id]);
    expect((await store.chatbots.memberPage(user.id, { limit: 10, after: null }, [])).items).toEqual([]);

    await store.resources.members.setUserRole(user.id, 'admin');
    expect((await store.users.get(user.id))!.role).toBe('admin');
    expect((await store.resources.members.byUser(bots[0].id, user.id))!.role).toBe('admin');
  });

  test('leads: pages newest first with a from/to range; many() stays in the chatbot', async () => {
    const {
      bots: [bot, other],
    } = await tenant(2);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = newId();
      ids.push(id);
      await store.resources.leads.insert({
        id,
        chatbotId: bot.id,
        conversationId: null,
        chatUserId: null,
        name: `n${i}`,
        email: null,
        phone: null,
        customFields: { seats: i, plan: 'pro' },
        source: 'widget',
        createdAt: at(i),
      });
    }
    const all = await allPages((after) => store.resources.leads.page(bot.id, { limit: 2, after }, {}));
    expect(all.map((l) => l.id)).toEqual([...ids].reverse());
    expect(all[0].customFields).toEqual({ seats: 4, plan: 'pro' });
    const ranged = await allPages((after) =>
      store.resources.leads.page(bot.id, { limit: 1, after }, { from: at(1), to: at(3) }),
    );
    expect(ranged.map((l) => l.id)).toEqual([ids[2], ids[1]]);
    expect(await store.resources.leads.many(other.id, ids)).toEqual([]);
    await store.resources.leads.delete([ids[0], ids[1]]);
    expect((await store.resources.leads.many(bot.id, ids)).map((l) => l.id)).toEqual([ids[4], ids[3], ids[2]]);
  });

  test('knowledge gaps and custom responses: pages, the answered filter, markAnswered', async () => {
    const {
      bots: [bot],
    } = await tenant();
    for (let i = 0; i < 4; i++) {
      await store.resources.knowledgeGaps.insert({
        id: `g${i}`,
        chatbotId: bot.id,
        conversationId: null,
        messageId: null,
        question: `q${i}`,
        customResponseId: null,
        answeredAt: null,
        createdAt: at(i),
      });
    }
    await store.resources.customResponses.insert({
      id: 'cr',
      chatbotId: bot.id,
      question: 'q1',
      answer: 'a',
      createdAt: at(9),
      updatedAt: at(9),
    });
    expect(await store.resources.knowledgeGaps.markAnswered('g1', 'cr', at(10), null)).toBe(true);
    const open = await allPages((after) =>
      store.resources.knowledgeGaps.page(bot.id, { limit: 1, after }, { answered: false }),
    );
    expect(open.map((g) => g.id)).toEqual(['g3', 'g2', 'g0']);
    const answered = await allPages((after) =>
      store.resources.knowledgeGaps.page(bot.id, { limit: 1, after }, { answered: true }),
    );
    expect(answered).toEqual([expect.objectContaining({ id: 'g1', customResponseId: 'cr', answeredAt: at(10) })]);
    expect(
      (await store.resources.customResponses.page(bot.id, { limit: 5, after: null })).items.map((r) => r.id),
    ).toEqual(['cr']);
    await store.resources.customResponses.update('cr', { answer: 'b' }, at(11));
    expect(await store.resources.customResponses.all(bot.id)).toEqual([
      expect.objectContaining({ answer: 'b', updatedAt: at(11) }),
    ]);
  });

  test('deleting a chatbot removes its resources (foreign keys cascade)', async () => {
    const {
      owner,
      bots: [bot],
    } = await tenant();
    await store.resources.starters.insert(prompt(bot.id));
    await store.resources.tags.insert({
      id: newId(),
      chatbotId: bot.id,
      name: 'x',
      color: null,
      createdAt: at(0),
      updatedAt: at(0),
    });
    await store.resources.members.insert({
      id: newId(),
      chatbotId: bot.id,
      userId: owner.id,
      role: 'owner',
      invitedById: null,
      createdAt: at(0),
    });
    await store.chatbots.delete(bot.id);
    expect(await store.resources.starters.count(bot.id)).toBe(0);
    expect(await store.resources.tags.count(bot.id)).toBe(0);
    expect(await store.resources.members.list(bot.id)).toEqual([]);
  });
});
