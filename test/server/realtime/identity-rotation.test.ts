/**
 * Identity secret rotation ends every session and socket the old secret's claims opened, whatever
 * the timing: sessions carry the id of the secret that signed their claim, so a session made or
 * renewed in the very second of the rotation is refused after it (a timestamp could not tell).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CLOSE } from '../../../shared/protocol.js';
import { signIdentity } from '../../../server/domain/visitors/identity.js';
import {
  chatbotWithKnowledge,
  connect,
  type LiveApp,
  newSession,
  startLiveApp,
  visitor,
} from '../../helpers/widget.js';

let t: LiveApp;
beforeAll(async () => {
  t = await startLiveApp();
});
afterAll(() => t?.close());

test("rotation ends the old secret's sessions whatever the timing: made or renewed in the rotation's second, refused after it; its socket closed", async () => {
  const id = await chatbotWithKnowledge(t);
  const email = 'same-second@example.com';
  const old = (await t.call('POST', `/api/v2/chatbots/${id}/identity-secret`, t.ownerToken)).body.data.identitySecret
    .secret as string;
  const made = await newSession(t, id, { identity: { email, signature: signIdentity(old, email) } });
  const renewed = await newSession(t, id, { renew: made.token });
  const open = await visitor(t.url, renewed.token);
  const iat = t.app.services.widget.tokens.read(renewed.token)!.iat;

  expect((await t.call('POST', `/api/v2/chatbots/${id}/identity-secret`, t.ownerToken)).status).toBe(201);
  // The rotation in the very second the sessions were issued (what a timestamp cannot tell apart).
  await t.database.db
    .updateTable('identity_secrets')
    .set({ created_at: new Date(iat * 1000).toISOString() })
    .where('chatbot_id', '=', id)
    .execute();
  for (const token of [made.token, renewed.token]) {
    const refused = await t.call('POST', `/api/widget/${id}/session`, null, { renew: token });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({
      code: 'SESSION_NOT_VALID',
      message: expect.stringMatching(/identity secret was rotated/),
    });
    expect((await (await connect(t.url, token)).waitClosed()).code).toBe(CLOSE.sessionInvalid);
  }
  open.send({ type: 'conversations.list' });
  expect(await open.waitClosed()).toMatchObject({
    code: CLOSE.sessionInvalid,
    reason: expect.stringMatching(/identity secret was rotated/),
  });
  expect(open.of('conversations')).toEqual([]);
});
