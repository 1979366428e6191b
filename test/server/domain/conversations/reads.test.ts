/**
 * What live readers read (domain/conversations/reads.ts), on a real store: the ownership rule
 * gives a visitor their own conversation and, for another visitor's, another chatbot's or an id
 * that does not exist, the same NOT_FOUND; a team member is named as visitors see them.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ChangeEngine } from '../../../../server/domain/conversations/changes.js';
import type { ConversationRecord } from '../../../../server/domain/conversations/ports.js';
import { ConversationReads, ownedBy } from '../../../../server/domain/conversations/reads.js';
import { newId, nowIso } from '../../../../server/domain/ids.js';
import type { ChatbotRecord, Store } from '../../../../server/domain/ports.js';
import { openTestDatabase } from '../../../helpers/database.js';
import { seedChatbot } from './seed.js';

let store: Store;
let close: () => Promise<void>;
let reads: ConversationReads;
let engine: ChangeEngine;

beforeAll(async () => {
  const opened = await openTestDatabase('sqlite');
  store = opened.store;
  close = () => opened.close();
  reads = new ConversationReads(store);
  engine = new ChangeEngine(store);
});
afterAll(() => close?.());

const chatbot = (settings: Record<string, unknown> = {}) => seedChatbot(store, settings);

async function visitorConversation(
  bot: ChatbotRecord,
): Promise<{ chatUserId: string; conversation: ConversationRecord }> {
  const at = nowIso();
  const chatUserId = newId();
  await store.conversations.chatUsers.insert({
    id: chatUserId,
    chatbotId: bot.id,
    email: null,
    name: null,
    phone: null,
    verified: false,
    metadata: {},
    createdAt: at,
    updatedAt: at,
  });
  return { chatUserId, conversation: await engine.start(bot, { chatUserId }) };
}

test("a visitor reaches their own conversation; another visitor's, another chatbot's or a missing one is NOT_FOUND alike", async () => {
  const bot = await chatbot();
  const mine = await visitorConversation(bot);
  const theirs = await visitorConversation(bot);
  const me = { chatbotId: bot.id, chatUserId: mine.chatUserId };
  expect((await reads.own(me, mine.conversation.id)).id).toBe(mine.conversation.id);
  expect(await reads.ofVisitor(me, theirs.conversation.id)).toBeNull();
  for (const id of [theirs.conversation.id, 'no-such-conversation']) {
    await expect(reads.own(me, id)).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Conversation not found' });
  }
  // The same chat user id under another chatbot's session reaches nothing.
  const other = await chatbot();
  expect(ownedBy(mine.conversation, { chatbotId: other.id, chatUserId: mine.chatUserId })).toBe(false);
  expect(await reads.ofVisitor({ chatbotId: other.id, chatUserId: mine.chatUserId }, mine.conversation.id)).toBeNull();
});

test("a team member is named by their display name, never their address, with the chatbot's agent icon", async () => {
  const bot = await chatbot({ agentIconSrcId: 'icon-1' });
  const at = nowIso();
  const named = newId();
  const unnamed = newId();
  await store.users.insert({
    id: named,
    accountId: bot.accountId,
    email: 'ana@x.test',
    name: 'Ana',
    role: 'member',
    createdAt: at,
  });
  await store.users.insert({
    id: unnamed,
    accountId: bot.accountId,
    email: 'bo@x.test',
    name: null,
    role: 'member',
    createdAt: at,
  });
  expect(await reads.agent(bot, named)).toEqual({ id: named, name: 'Ana', avatarUrl: 'icon-1' });
  expect(await reads.agent(bot, unnamed)).toEqual({ id: unnamed, name: null, avatarUrl: 'icon-1' });
  expect(await reads.agent(bot, null)).toBeNull();
});
