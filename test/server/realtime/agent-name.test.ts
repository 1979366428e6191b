/**
 * One name for a team member on the visitor's wire: the take-over condition, their replies (live
 * and replayed) and the conversation list carry the member's display name, or null when they
 * have none (the widget then writes its "support team" text). Their e-mail address never
 * reaches the visitor, not even its local part, unless it is the name they were given.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type {
  AckFrame,
  ConditionFrame,
  ConversationsFrame,
  MessageCreatedFrame,
  ServerFrame,
} from '../../../shared/protocol.js';
import { newId } from '../../../server/domain/ids.js';
import { userWithToken } from '../../helpers/resources.js';
import { chatbotWithKnowledge, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

let t: LiveApp;
let chatbotId: string;
let accountId: string;

beforeAll(async () => {
  t = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(t);
  accountId = (await t.app.services.accounts.resolve()).id;
});
afterAll(async () => {
  await t.close();
});

/** A team member of the chatbot with a token; `name` set through PATCH members when given. */
async function teamMember(email: string, name?: string) {
  const { user, token } = await userWithToken(t, accountId, 'admin', email);
  const member = (await t.call('POST', `/api/v2/chatbots/${chatbotId}/members`, t.ownerToken, { email, role: 'admin' }))
    .body.data.member;
  if (name !== undefined)
    expect(
      (await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/members/${member.id}`, t.ownerToken, { name })).status,
    ).toBe(200);
  return { user, token };
}

/** A visitor's conversation taken over and answered by `token`'s user; every frame the visitor got. */
async function takenOverAndAnswered(token: string) {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  c.send({ type: 'message.send', clientId: 'q', text: 'Hello there' });
  const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack');
  await c.waitFor((f) => f.type === 'answer.done');
  const base = `/api/v2/chatbots/${chatbotId}/conversations/${ack.conversationId}`;
  expect((await t.call('POST', `${base}/take-over`, token)).status).toBe(200);
  const taken = await c.waitFor<ConditionFrame>((f) => f.type === 'condition' && f.change === 'taken_over');
  expect((await t.call('POST', `${base}/replies`, token, { message: 'A person here.' })).status).toBeLessThan(300);
  const reply = await c.waitFor<MessageCreatedFrame>(
    (f) => f.type === 'message.created' && f.message.author === 'agent',
  );
  // Another tab of the visitor: the history replayed, and the conversation list.
  const other = await visitor(t.url, session.token);
  other.send({ type: 'conversation.open', conversationId: ack.conversationId, after: 0 });
  const replayed = await other.waitFor<MessageCreatedFrame>(
    (f) => f.type === 'message.created' && f.message.author === 'agent',
  );
  other.send({ type: 'conversations.list' });
  const list = await other.waitFor<ConversationsFrame>((f) => f.type === 'conversations');
  const frames: ServerFrame[] = [...c.frames, ...other.frames];
  c.close();
  other.close();
  return { taken, reply, replayed, listed: list.items.find((i) => i.id === ack.conversationId)!, frames };
}

test('a member without a name: null everywhere, and neither their address nor its local part is sent', async () => {
  const local = `quiet.${newId().slice(0, 8)}`;
  const { user, token } = await teamMember(`${local}@team.test`);
  const seen = await takenOverAndAnswered(token);
  expect(seen.taken.state.agent).toMatchObject({ id: user.id, name: null });
  expect(seen.reply.message.agent).toMatchObject({ id: user.id, name: null });
  expect(seen.reply.message.name).toBeNull();
  expect(seen.replayed.message.agent?.name).toBeNull();
  expect(seen.listed.state.agent?.name).toBeNull();
  const wire = JSON.stringify(seen.frames);
  expect(wire).not.toContain('@team.test');
  expect(wire).not.toContain(local);
});

test('a named member: the same name on the condition, the live and replayed reply and the list', async () => {
  const { token } = await teamMember(`dana.${newId().slice(0, 8)}@team.test`, 'Dana from Support');
  const seen = await takenOverAndAnswered(token);
  const names = [
    seen.taken.state.agent?.name,
    seen.reply.message.agent?.name,
    seen.reply.message.name,
    seen.replayed.message.agent?.name,
    seen.listed.state.agent?.name,
  ];
  expect(names).toEqual(Array(5).fill('Dana from Support'));
  expect(JSON.stringify(seen.frames)).not.toContain('@team.test');
});

test('the owner without a name is not "owner" nor their address; an address chosen as the name is shown', async () => {
  const owner = (await t.app.services.store.users.owner(accountId))!;
  const seen = await takenOverAndAnswered(t.ownerToken);
  expect([seen.taken.state.agent?.name, seen.reply.message.agent?.name]).toEqual([null, null]);
  expect(JSON.stringify(seen.frames)).not.toContain(owner.email);

  const { token } = await teamMember(`desk.${newId().slice(0, 8)}@team.test`, 'help@shop.example');
  const named = await takenOverAndAnswered(token);
  expect([named.taken.state.agent?.name, named.reply.message.agent?.name]).toEqual([
    'help@shop.example',
    'help@shop.example',
  ]);
});
