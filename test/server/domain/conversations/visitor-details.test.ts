/**
 * A visitor's contact details (domain/conversations/visitor-details.ts) on a real store: a new
 * conversation with details gets its chat user in a change of its own; details given later fill
 * in that chat user, except the address a verified visitor proved; free-form fields out of
 * bounds are refused before anything is stored.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ChangeEngine } from '../../../../server/domain/conversations/changes.js';
import {
  checkVisitor,
  hasDetails,
  VisitorDetailsWriter,
} from '../../../../server/domain/conversations/visitor-details.js';
import type { ChatbotRecord, Store } from '../../../../server/domain/ports.js';
import { openTestDatabase } from '../../../helpers/database.js';
import { seedChatbot } from './seed.js';

describe('visitor details on sqlite', () => {
  let store: Store;
  let close: () => Promise<void>;
  let details: VisitorDetailsWriter;
  let chatbot: ChatbotRecord;

  beforeAll(async () => {
    const opened = await openTestDatabase('sqlite');
    store = opened.store;
    close = () => opened.close();
    details = new VisitorDetailsWriter(store, new ChangeEngine(store));
    chatbot = await seedChatbot(store);
  });
  afterAll(() => close?.());

  test('a conversation opened with details has its chat user, cleaned, announced as an update', async () => {
    const c = await details.open(chatbot, { email: '  Vi@X.test ', name: ' Vi ' }, {});
    expect(c.chatUserId).not.toBeNull();
    expect(await store.conversations.chatUsers.get(c.chatUserId!)).toMatchObject({
      email: 'vi@x.test',
      name: 'Vi',
      phone: null,
      verified: false,
    });
    expect((await store.conversations.events.after(c.id, 0, 10)).map((e) => e.type)).toEqual([
      'conversation.started',
      'conversation.updated',
    ]);
  });

  test("details given later fill in the chat user, but a verified visitor's address stays", async () => {
    const c = await details.open(chatbot, { email: 'proved@x.test' }, {});
    await store.conversations.chatUsers.update(c.chatUserId!, { verified: true });
    await details.identify(chatbot, (await store.conversations.get(c.id))!, { email: 'other@x.test', phone: '+1 555' });
    expect(await store.conversations.chatUsers.get(c.chatUserId!)).toMatchObject({
      email: 'proved@x.test',
      phone: '+1 555',
    });
  });

  test('a conversation opened without details has no chat user; free-form fields out of bounds are refused', async () => {
    expect((await details.open(chatbot, {}, {})).chatUserId).toBeNull();
    expect(hasDetails({ customFields: {} })).toBe(false);
    expect(hasDetails({ customFields: { plan: 'pro' } })).toBe(true);
    expect(() => checkVisitor({ customFields: { big: 'x'.repeat(100_000) } })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });
});
