/**
 * The identity secret (made, shown once, rotated, stored sealed) and signed identity claims: a
 * correct signature makes the visitor that user on every device; an unsigned or wrongly signed
 * claim is refused and never reveals or merges anyone's history.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { signIdentity } from '../../../../server/domain/visitors/identity.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { createChatbot, describeRouteErrors, expectError, freshAccount } from '../../../helpers/resources.js';

let t: TestApp;
let token: string;
let chatbotId: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  chatbotId = await createChatbot(t, token, 'identity');
});
afterAll(() => t.close());

const url = (id = chatbotId) => `/api/v2/chatbots/${id}/identity-secret`;
const identity = () => t.app.services.visitors.identity;
const accounts = () => t.app.services.visitors.accounts;

async function anonymousVisitor(id = chatbotId, tok = token) {
  const res = await t.call('POST', `/api/v2/chatbots/${id}/conversations`, tok, { visitor: { name: 'Anon' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return {
    chatUserId: res.body.data.conversation.chatUserId as string,
    conversationId: res.body.data.conversation.threadId as string,
  };
}

describe('the identity secret', () => {
  test('is made with settings:write, shown once, stored sealed, and rotation voids the old one', async () => {
    expect((await t.call('GET', url(), token)).body.data.identitySecret).toEqual({
      configured: false,
      createdAt: null,
      algorithm: 'HMAC-SHA256',
    });
    const made = await t.call('POST', url(), token);
    expect(made.status).toBe(201);
    const first = made.body.data.identitySecret.secret as string;
    expect(first).toMatch(/^pis_[A-Za-z0-9_-]{43}$/);

    const status = await t.call('GET', url(), token);
    expect(status.body.data.identitySecret).toMatchObject({ configured: true, algorithm: 'HMAC-SHA256' });
    expect(JSON.stringify(status.body)).not.toContain(first);
    const rows = await t.database.db.selectFrom('identity_secrets').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(first);

    const email = 'rotate@example.com';
    expect(await identity().verify(chatbotId, { email, signature: signIdentity(first, email) })).toBe(email);
    const second = (await t.call('POST', url(), token)).body.data.identitySecret.secret as string;
    expect(second).not.toBe(first);
    expect(await identity().verify(chatbotId, { email, signature: signIdentity(first, email) })).toBeNull();
    expect(await identity().verify(chatbotId, { email, signature: signIdentity(second, email) })).toBe(email);
  });

  test('a settings:read token sees the status but cannot make one', async () => {
    const reader = (await t.token({ access: 'custom', scopes: ['settings:read'] })).token;
    expect((await t.call('GET', url(), reader)).status).toBe(200);
    expectError(await t.call('POST', url(), reader), 403, 'TOKEN_SCOPE_NOT_ALLOWED');
  });

  test('delete needs confirm, then every claim is refused', async () => {
    const id = await createChatbot(t, token, 'to-delete');
    const secret = (await t.call('POST', url(id), token)).body.data.identitySecret.secret as string;
    expectError(await t.call('DELETE', url(id), token), 400, 'CONFIRMATION_REQUIRED');
    expect(
      await identity().verify(id, { email: 'a@example.com', signature: signIdentity(secret, 'a@example.com') }),
    ).toBe('a@example.com');
    const del = await t.call('DELETE', `${url(id)}?confirm=true`, token);
    expect(del.status).toBe(200);
    expect(del.body.data.identitySecret.configured).toBe(false);
    expect(
      await identity().verify(id, { email: 'a@example.com', signature: signIdentity(secret, 'a@example.com') }),
    ).toBeNull();
    expectError(await t.call('DELETE', `${url(id)}?confirm=true`, token), 404, 'NOT_FOUND');
  });

  test('the OpenAPI document describes the routes', async () => {
    const doc = (await t.call('GET', '/api/v2/openapi.json')).body;
    const path = doc.paths['/chatbots/{chatbotId}/identity-secret'];
    expect(Object.keys(path).sort()).toEqual(['delete', 'get', 'post']);
    expect(path.post.description).toMatch(/shown|no route returns it again/i);
  });
});

describe('signed identity claims', () => {
  let secret: string;
  beforeAll(async () => {
    secret = (await t.call('POST', url(), token)).body.data.identitySecret.secret;
  });

  test("a correct signature is that user on every device, with the device's own conversation joined", async () => {
    const email = 'Grace@Example.com';
    const phone = await anonymousVisitor();
    const a = await identity().identify(
      chatbotId,
      { email, signature: signIdentity(secret, email), name: 'Grace' },
      phone.chatUserId,
    );
    expect(a.visitor).toEqual({
      id: phone.chatUserId,
      email: 'grace@example.com',
      name: 'Grace',
      phone: null,
      verified: true,
    });
    const laptop = await anonymousVisitor();
    const b = await identity().identify(
      chatbotId,
      { email, signature: signIdentity(secret, email) },
      laptop.chatUserId,
    );
    expect(b.visitor.id).toBe(a.visitor.id);
    expect(
      (await accounts().conversations({ id: chatbotId, settings: {} }, b.visitor.id)).map((c) => c.id).sort(),
    ).toEqual([phone.conversationId, laptop.conversationId].sort());
  });

  test('unsigned, wrongly signed, or signed for another address or chatbot: refused, nothing revealed or merged', async () => {
    const email = 'victim@example.com';
    const victimDevice = await anonymousVisitor();
    const victim = await identity().identify(
      chatbotId,
      { email, signature: signIdentity(secret, email) },
      victimDevice.chatUserId,
    );
    const before = await accounts().conversations({ id: chatbotId, settings: {} }, victim.visitor.id);

    const other = await freshAccount(t, 'other');
    const otherSecret = (await t.call('POST', url(other.chatbotId), other.token)).body.data.identitySecret
      .secret as string;
    const attacker = await anonymousVisitor();
    const claims = [
      { email, signature: '' },
      { email } as { email: string; signature: string },
      { email, signature: 'not hex at all' },
      { email, signature: '0'.repeat(64) },
      { email, signature: signIdentity(secret, 'attacker@example.com') },
      { email, signature: signIdentity(otherSecret, email) },
      { email, signature: signIdentity(secret, email).slice(0, 63) },
      { email: 'VICTIM@example.com', signature: signIdentity(secret, email) },
    ];
    for (const claim of claims) {
      await expect(identity().identify(chatbotId, claim, attacker.chatUserId)).rejects.toMatchObject({
        code: 'IDENTITY_NOT_VALID',
        status: 401,
      });
    }
    // The victim's history is unchanged and the attacker's own visitor stayed anonymous and alone.
    expect(await accounts().conversations({ id: chatbotId, settings: {} }, victim.visitor.id)).toEqual(before);
    expect(
      (await accounts().conversations({ id: chatbotId, settings: {} }, attacker.chatUserId)).map((c) => c.id),
    ).toEqual([attacker.conversationId]);
    expect(await accounts().visitor(chatbotId, attacker.chatUserId)).toMatchObject({ email: null, verified: false });
  });

  test('a chatbot without a secret refuses every claim', async () => {
    const id = await createChatbot(t, token, 'no-secret');
    await expect(
      identity().identify(id, { email: 'a@example.com', signature: signIdentity('', 'a@example.com') }),
    ).rejects.toMatchObject({ code: 'IDENTITY_NOT_VALID' });
  });
});

describeRouteErrors('identity secret', () => ({
  t,
  token,
  chatbotId,
  routes: [
    { method: 'GET', path: (id) => `/chatbots/${id}/identity-secret`, scopes: ['settings:read'] },
    { method: 'POST', path: (id) => `/chatbots/${id}/identity-secret`, scopes: ['settings:write'] },
    { method: 'DELETE', path: (id) => `/chatbots/${id}/identity-secret?confirm=true`, scopes: ['settings:write'] },
  ],
}));
