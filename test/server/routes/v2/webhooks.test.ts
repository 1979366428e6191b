/**
 * Webhooks end to end through the real app and a local HTTPS receiver: the three events of
 * section 6 with exactly their fields in both variants, target precedence, tokens and
 * signatures (checked with openssl), the settings checks (HTTPS, internal addresses, the plan),
 * the delivery log, redelivery, test sends and secret rotation.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import {
  startReceiver,
  verifyWithOpenssl,
  type ReceivedWebhook,
  type WebhookReceiver,
} from '../../../helpers/webhook-receiver.js';

let t: TestApp;
let receiver: WebhookReceiver;
let token: string;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await buildTestApp({
    env: { ALLOW_PRIVATE_FETCH: '127.0.0.0/8', NODE_EXTRA_CA_CERTS: receiver.caFile, WEBHOOK_POLL_MS: '20' },
  });
  token = (await t.token()).token;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});
beforeEach(() => {
  receiver.respond = () => 200;
});

const A_MESSAGE_FIELDS = [
  'agentId',
  'agentName',
  'answer',
  'chatbotId',
  'gptModel',
  'iconUrl',
  'messageType',
  'question',
  'sources',
  'systemMessageType',
  'threadId',
];

async function chatbot(webhooks: Record<string, unknown>) {
  const created = await t.call('POST', '/api/v2/chatbots', token, { title: 'Support bot' });
  expect(created.status).toBe(201);
  const id = created.body.data.chatbot.id as string;
  await t.call('POST', `/api/v2/chatbots/${id}/knowledge/text`, token, {
    title: 'Refunds',
    text: 'Refunds are paid within 14 days of a return being received at our warehouse.',
  });
  const saved = await t.call('PATCH', `/api/v2/chatbots/${id}/settings/webhooks`, token, webhooks);
  expect(saved.status).toBe(200);
  return { id, secret: saved.body.data.signingSecret as string | undefined };
}

const at = (path: string) => (r: ReceivedWebhook) => r.path === path;
const bodies = (path: string) => receiver.received.filter(at(path)).map((r) => JSON.parse(r.body));
async function waitCount(path: string, n: number) {
  await receiver.waitFor((all) => all.filter(at(path)).length >= n);
}

describe('events of section 6', () => {
  test('variant A: a message event for the visitor, the AI and the team; escalation; lead; each signed and with its token', async () => {
    const { id, secret } = await chatbot({
      messagesWebhookUrl: `${receiver.url}/a/messages`,
      messagesWebhookToken: 'msg-token',
      escalationWebhookUrl: `${receiver.url}/a/escalations`,
      escalationWebhookToken: 'esc-token',
      leadsWebhookUrl: `${receiver.url}/a/leads`,
      leadsWebhookToken: 'lead-token',
    });
    expect(secret).toMatch(/^whsec_/);
    const conv = await t.call('POST', `/api/v2/chatbots/${id}/conversations`, token, {});
    const threadId = conv.body.data.conversation.threadId as string;
    const sent = await t.call('POST', `/api/v2/chatbots/${id}/conversations/${threadId}/messages`, token, {
      message: 'How long do refunds take?',
    });
    expect(sent.status).toBe(201);
    await waitCount('/a/messages', 2);
    const visitor = bodies('/a/messages').find((b) => b.data.answer === null);
    const ai = bodies('/a/messages').find((b) => b.data.answer !== null);
    expect(visitor.event).toBe('ADD_MESSAGE');
    expect(Object.keys(visitor.data).sort()).toEqual(A_MESSAGE_FIELDS);
    expect(visitor.data).toMatchObject({
      chatbotId: id,
      threadId,
      question: 'How long do refunds take?',
      answer: null,
      messageType: 'NORMAL_MESSAGE',
      agentId: null,
      gptModel: 'gpt-4.1-mini',
    });
    expect(Object.keys(ai.data).sort()).toEqual(A_MESSAGE_FIELDS);
    expect(ai.data).toMatchObject({
      question: 'How long do refunds take?',
      answer: sent.body.data.answer.text,
      messageType: 'NORMAL_MESSAGE',
    });
    expect(Array.isArray(ai.data.sources)).toBe(true);

    // Escalation before any contact details: user is null.
    expect((await t.call('POST', `/api/v2/chatbots/${id}/conversations/${threadId}/escalate`, token)).status).toBe(200);
    await waitCount('/a/escalations', 1);
    const [esc] = bodies('/a/escalations');
    expect(esc).toEqual({
      event: 'CONVERSATION_ESCALATED',
      data: { chatbotId: id, threadId, dashboardUrl: expect.stringContaining(threadId), user: null },
    });

    // The team takes over and replies: a message event with the agent.
    await t.call('POST', `/api/v2/chatbots/${id}/conversations/${threadId}/take-over`, token);
    const reply = await t.call('POST', `/api/v2/chatbots/${id}/conversations/${threadId}/replies`, token, {
      message: 'I have refunded you.',
    });
    expect(reply.status).toBeLessThan(300);
    await waitCount('/a/messages', 3);
    const agent = bodies('/a/messages').find((b) => b.data.messageType === 'AGENT_MESSAGE');
    expect(agent.data).toMatchObject({
      question: null,
      answer: 'I have refunded you.',
      agentId: expect.any(String),
      agentName: expect.any(String),
    });

    // A lead: contact details given in the conversation.
    const lead = await t.call('PATCH', `/api/v2/chatbots/${id}/conversations/${threadId}`, token, {
      visitor: { email: 'Ada@Example.com', name: 'Ada' },
    });
    expect(lead.status).toBe(200);
    await waitCount('/a/leads', 1);
    const [l] = bodies('/a/leads');
    expect(l.event).toBe('NEW_LEAD_CAPTURE');
    expect(Object.keys(l.data).sort()).toEqual(['chatbotId', 'chatbotName', 'dashboardUrl', 'leadDetails']);
    expect(l.data).toMatchObject({ chatbotId: id, chatbotName: 'Support bot' });
    expect(l.data.leadDetails).toEqual({
      id: expect.any(String),
      name: 'Ada',
      email: 'ada@example.com',
      phone: null,
      capturedAt: expect.any(String),
    });

    // Tokens by event, and every delivery verifies with the secret shown at save.
    for (const r of receiver.received.filter((x) => x.path.startsWith('/a/'))) {
      const expected = { '/a/messages': 'msg-token', '/a/escalations': 'esc-token', '/a/leads': 'lead-token' }[r.path];
      expect(r.headers['x-webhook-token']).toBe(expected);
      expect(verifyWithOpenssl(secret!, r.headers, r.body)).toEqual({ standard: true, service: true });
    }
  });

  test('variant B: flat bodies with exactly their fields', async () => {
    const { id } = await chatbot({ webhookUrl: `${receiver.url}/b`, webhookPayloadVariant: 'B' });
    const conv = await t.call('POST', `/api/v2/chatbots/${id}/conversations`, token, {
      visitor: { name: 'Bo', email: 'bo@example.com' },
    });
    const threadId = conv.body.data.conversation.threadId as string;
    await waitCount('/b', 1); // the lead of the contact details
    await t.call('POST', `/api/v2/chatbots/${id}/conversations/${threadId}/messages`, token, {
      message: 'How long do refunds take?',
    });
    await t.call('POST', `/api/v2/chatbots/${id}/conversations/${threadId}/escalate`, token);
    await waitCount('/b', 4);
    const got = bodies('/b');
    const lead = got.find((b) => b.event === 'lead');
    expect(Object.keys(lead).sort()).toEqual(['chatbotId', 'event', 'lead', 'leadId', 'source', 'timestamp']);
    expect(lead.lead).toEqual({ email: 'bo@example.com', name: 'Bo', phone: null, customData: {} });
    const messages = got.filter((b) => b.event === 'message');
    expect(messages).toHaveLength(2);
    for (const m of messages) {
      expect(Object.keys(m).sort()).toEqual([
        'chatbotId',
        'event',
        'message',
        'messageId',
        'threadId',
        'timestamp',
        'user',
      ]);
      expect(Object.keys(m.message).sort()).toEqual(['answer', 'question', 'sources']);
      expect(m.user).toEqual({ email: 'bo@example.com', name: 'Bo' });
    }
    const esc = got.find((b) => b.event === 'escalation');
    expect(Object.keys(esc).sort()).toEqual([
      'chatbotId',
      'conversationUrl',
      'event',
      'reason',
      'threadId',
      'timestamp',
      'user',
    ]);
    expect(esc.user).toEqual({ email: 'bo@example.com', name: 'Bo' });
  });

  test('a lead from the widget form before any conversation is delivered too', async () => {
    const { id } = await chatbot({ leadsWebhookUrl: `${receiver.url}/widget-lead` });
    const userId = `u${Date.now()}`;
    const now = new Date().toISOString();
    await t.app.services.store.conversations.chatUsers.insert({
      id: userId,
      chatbotId: id,
      email: null,
      name: null,
      phone: null,
      verified: false,
      metadata: {},
      createdAt: now,
      updatedAt: now,
    });
    const { leadId } = await t.app.services.visitors.leads.submit({
      chatbotId: id,
      chatUserId: userId,
      email: 'form@example.com',
      name: 'Form',
    });
    await waitCount('/widget-lead', 1);
    expect(bodies('/widget-lead')[0].data.leadDetails).toMatchObject({
      id: leadId,
      email: 'form@example.com',
      name: 'Form',
    });
  });

  test("target order: the thread's own pair, then the event's URL, then the global one", async () => {
    const { id } = await chatbot({
      webhookUrl: `${receiver.url}/order/global`,
      webhookToken: 'g',
      escalationWebhookUrl: `${receiver.url}/order/escalation`,
      escalationWebhookToken: 'e',
    });
    const plain = (await t.call('POST', `/api/v2/chatbots/${id}/conversations`, token, {})).body.data.conversation
      .threadId;
    const own = (
      await t.call('POST', `/api/v2/chatbots/${id}/conversations`, token, {
        webhookUrl: `${receiver.url}/order/thread`,
        webhookToken: 't',
      })
    ).body.data.conversation.threadId;
    await t.call('POST', `/api/v2/chatbots/${id}/conversations/${plain}/escalate`, token);
    await t.call('POST', `/api/v2/chatbots/${id}/conversations/${own}/escalate`, token);
    await t.call('POST', `/api/v2/chatbots/${id}/conversations/${own}/take-over`, token);
    await t.call('POST', `/api/v2/chatbots/${id}/conversations/${plain}/take-over`, token);
    await t.call('POST', `/api/v2/chatbots/${id}/conversations/${plain}/replies`, token, { message: 'hello' });
    await receiver.waitFor((all) => all.filter((r) => r.path.startsWith('/order/')).length >= 3);
    const seen = receiver.received
      .filter((r) => r.path.startsWith('/order/'))
      .map((r) => [r.path, JSON.parse(r.body).data.threadId, r.headers['x-webhook-token']]);
    expect(seen).toEqual(
      expect.arrayContaining([
        ['/order/escalation', plain, 'e'],
        ['/order/thread', own, 't'],
        ['/order/global', plain, 'g'],
      ]),
    );
    expect(seen).toHaveLength(3);
  });

  test('the API call that causes an event does not wait for the receiver', async () => {
    const { id } = await chatbot({ messagesWebhookUrl: `${receiver.url}/hang` });
    receiver.respond = () => 'hang';
    const conv = (await t.call('POST', `/api/v2/chatbots/${id}/conversations`, token, {})).body.data.conversation
      .threadId;
    await t.call('POST', `/api/v2/chatbots/${id}/conversations/${conv}/take-over`, token);
    const res = await t.call('POST', `/api/v2/chatbots/${id}/conversations/${conv}/replies`, token, { message: 'x' });
    expect(res.status).toBeLessThan(300);
    await waitCount('/hang', 1);
    // The receiver has the request and has not answered: the API call already returned.
    const log = await t.call('GET', `/api/v2/chatbots/${id}/webhooks/deliveries`, token);
    expect(log.body.data.deliveries[0]).toMatchObject({ status: 'pending', attempts: 0 });
  });
});

describe('settings checks', () => {
  test('internal addresses are refused at save unless ALLOW_PRIVATE_FETCH opens them', async () => {
    const closed = await buildTestApp({ env: { NODE_EXTRA_CA_CERTS: receiver.caFile } });
    try {
      const tok = (await closed.token()).token;
      const id = (await closed.call('POST', '/api/v2/chatbots', tok, { title: 'x' })).body.data.chatbot.id;
      for (const url of [
        'https://127.0.0.1:8443/in',
        'https://localhost/in',
        'https://10.1.2.3/in',
        'https://169.254.169.254/latest',
        'https://[::1]/in',
        'https://2130706433/in',
      ]) {
        const res = await closed.call('PATCH', `/api/v2/chatbots/${id}/settings/webhooks`, tok, {
          messagesWebhookUrl: url,
        });
        expect(res.status, url).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
        expect(res.body.error.details[0].path).toEqual(['webhooks', 'messagesWebhookUrl']);
      }
      expect(
        (await closed.call('GET', `/api/v2/chatbots/${id}/settings`, tok)).body.data.settings.messagesWebhookUrl,
      ).toBeNull();
      const thread = await closed.call('POST', `/api/v2/chatbots/${id}/conversations`, tok, {
        webhookUrl: 'https://192.168.1.1/hook',
      });
      expect(thread.status).toBe(400);
      // At send too: a thread URL saved before the rule existed is refused by the guarded client.
      const ok = await closed.call('PATCH', `/api/v2/chatbots/${id}/settings/webhooks`, tok, {
        messagesWebhookUrl: 'https://93.184.215.14/in',
      });
      expect(ok.status).toBe(200);
    } finally {
      await closed.close();
    }
  });

  test('without the add-on: 403 on the sending routes, and changes emit nothing', async () => {
    const { id } = await chatbot({ messagesWebhookUrl: `${receiver.url}/plan` });
    const account = await t.app.services.accounts.resolve();
    await t.app.services.accounts.setPlan(account.id, { webhooks: false });
    try {
      const test = await t.call('POST', `/api/v2/chatbots/${id}/webhooks/test`, token, { event: 'message' });
      expect(test.status).toBe(403);
      expect(test.body.error.code).toBe('WEBHOOKS_NOT_AVAILABLE');
      const conv = (await t.call('POST', `/api/v2/chatbots/${id}/conversations`, token, {})).body.data.conversation
        .threadId;
      await t.call('POST', `/api/v2/chatbots/${id}/conversations/${conv}/take-over`, token);
      await t.call('POST', `/api/v2/chatbots/${id}/conversations/${conv}/replies`, token, { message: 'x' });
      expect((await t.call('GET', `/api/v2/chatbots/${id}/webhooks/deliveries`, token)).body.data.deliveries).toEqual(
        [],
      );
    } finally {
      await t.app.services.accounts.setPlan(account.id, { webhooks: true });
    }
  });
});

describe('delivery log, redelivery, test sends, secret rotation', () => {
  test('the log shows each delivery; redelivery sends the same id and body again', async () => {
    const { id } = await chatbot({ leadsWebhookUrl: `${receiver.url}/log/leads` });
    receiver.respond = (r) =>
      r.path === '/log/leads' && receiver.received.filter(at('/log/leads')).length === 1 ? 500 : 200;
    await t.call('POST', `/api/v2/chatbots/${id}/conversations`, token, { visitor: { email: 'log@example.com' } });
    await waitCount('/log/leads', 2); // the first attempt fails, the 1 s retry succeeds
    let log = await t.call('GET', `/api/v2/chatbots/${id}/webhooks/deliveries?event=lead`, token);
    await expect
      .poll(
        async () =>
          (log = await t.call('GET', `/api/v2/chatbots/${id}/webhooks/deliveries?event=lead`, token)).body.data
            .deliveries[0].status,
      )
      .toBe('delivered');
    const entry = log.body.data.deliveries[0];
    expect(entry).toMatchObject({
      event: 'lead',
      variant: 'A',
      target: { url: `${receiver.url}/log/leads`, source: 'event' },
      attempts: 2,
      lastStatus: 200,
      nextAttemptAt: null,
    });
    const one = await t.call('GET', `/api/v2/chatbots/${id}/webhooks/deliveries/${entry.id}`, token);
    expect(one.body.data.delivery.payload.event).toBe('NEW_LEAD_CAPTURE');
    // The payload is the lead itself: settings:read alone does not show it, leads:read does.
    const settingsOnly = (await t.token({ access: 'custom', scopes: ['settings:read'] })).token;
    const refused = await t.call('GET', `/api/v2/chatbots/${id}/webhooks/deliveries/${entry.id}`, settingsOnly);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'TOKEN_SCOPE_NOT_ALLOWED',
      details: { requiredScopes: ['settings:read', 'leads:read'] },
    });
    expect(JSON.stringify(refused.body)).not.toContain('log@example.com');
    const withLeads = (await t.token({ access: 'custom', scopes: ['settings:read', 'leads:read'] })).token;
    expect(
      (await t.call('GET', `/api/v2/chatbots/${id}/webhooks/deliveries/${entry.id}`, withLeads)).body.data.delivery
        .payload.event,
    ).toBe('NEW_LEAD_CAPTURE');

    const again = await t.call('POST', `/api/v2/chatbots/${id}/webhooks/deliveries/${entry.id}/redeliver`, token);
    expect(again.status).toBe(202);
    await waitCount('/log/leads', 3);
    const all = receiver.received.filter(at('/log/leads'));
    expect(new Set(all.map((r) => r.headers['webhook-id']))).toEqual(new Set([entry.id]));
    expect(new Set(all.map((r) => r.body)).size).toBe(1);

    expect((await t.call('GET', `/api/v2/chatbots/${id}/webhooks/deliveries/nope`, token)).status).toBe(404);
    const filtered = await t.call('GET', `/api/v2/chatbots/${id}/webhooks/deliveries?status=failed`, token);
    expect(filtered.body.data.deliveries).toEqual([]);
  });

  test('a test send goes where the event goes, with a sample body', async () => {
    const { id } = await chatbot({ escalationWebhookUrl: `${receiver.url}/test/escalation` });
    const res = await t.call('POST', `/api/v2/chatbots/${id}/webhooks/test`, token, { event: 'escalation' });
    expect(res.status).toBe(202);
    expect(res.body.data.delivery).toMatchObject({
      event: 'escalation',
      status: 'pending',
      target: { source: 'test' },
    });
    await waitCount('/test/escalation', 1);
    expect(bodies('/test/escalation')[0]).toMatchObject({
      event: 'CONVERSATION_ESCALATED',
      data: { threadId: 'test_thread' },
    });
    const none = await t.call('POST', `/api/v2/chatbots/${id}/webhooks/test`, token, { event: 'lead' });
    expect(none.status).toBe(400);
  });

  test('rotation: the new secret is shown once; during the overlap both sign, after it only the new one', async () => {
    const { id, secret: first } = await chatbot({ messagesWebhookUrl: `${receiver.url}/rotate` });
    const again = await t.call('PATCH', `/api/v2/chatbots/${id}/settings/webhooks`, token, {
      messagesWebhookUrl: `${receiver.url}/rotate`,
    });
    expect(again.body.data.signingSecret).toBeUndefined();
    const rotated = await t.call('POST', `/api/v2/chatbots/${id}/webhooks/signing-secret`, token, {
      overlapMinutes: 60,
    });
    expect(rotated.status).toBe(200);
    const second = rotated.body.data.signingSecret as string;
    expect(second).not.toBe(first);
    await t.call('POST', `/api/v2/chatbots/${id}/webhooks/test`, token, { event: 'message' });
    await waitCount('/rotate', 1);
    const r1 = receiver.received.filter(at('/rotate'))[0];
    // Both sign webhook-signature; X-SERVICE-SIGNATURE is the one value of the current secret.
    expect(verifyWithOpenssl(first!, r1.headers, r1.body)).toEqual({ standard: true, service: false });
    expect(verifyWithOpenssl(second, r1.headers, r1.body)).toEqual({ standard: true, service: true });
    const overview = await t.call('GET', `/api/v2/chatbots/${id}/webhooks`, token);
    expect(overview.body.data.webhooks.signingSecret.previousValidUntil).toEqual(rotated.body.data.previousValidUntil);
    expect(JSON.stringify(overview.body)).not.toContain(second.slice(6));

    await t.call('POST', `/api/v2/chatbots/${id}/webhooks/signing-secret`, token, { overlapMinutes: 0 });
    const third = await t.call('POST', `/api/v2/chatbots/${id}/webhooks/signing-secret`, token, { overlapMinutes: 0 });
    await t.call('POST', `/api/v2/chatbots/${id}/webhooks/test`, token, { event: 'message' });
    await waitCount('/rotate', 2);
    const r2 = receiver.received.filter(at('/rotate'))[1];
    expect(verifyWithOpenssl(third.body.data.signingSecret, r2.headers, r2.body)).toEqual({
      standard: true,
      service: true,
    });
    expect(verifyWithOpenssl(second, r2.headers, r2.body)).toEqual({ standard: false, service: false });
  });

  test('a disabled target: redelivery and test sends answer 409 until it is re-enabled', async () => {
    const { id } = await chatbot({ messagesWebhookUrl: `${receiver.url}/gone` });
    receiver.respond = () => 410;
    const sent = await t.call('POST', `/api/v2/chatbots/${id}/webhooks/test`, token, { event: 'message' });
    await expect
      .poll(
        async () =>
          (await t.call('GET', `/api/v2/chatbots/${id}/webhooks`, token)).body.data.webhooks.targets[0]?.disabled,
      )
      .toBe(true);
    const redeliver = await t.call(
      'POST',
      `/api/v2/chatbots/${id}/webhooks/deliveries/${sent.body.data.delivery.id}/redeliver`,
      token,
    );
    expect(redeliver.status).toBe(409);
    expect(redeliver.body.error.code).toBe('WEBHOOK_TARGET_DISABLED');
    const enabled = await t.call('POST', `/api/v2/chatbots/${id}/webhooks/targets/enable`, token, {
      url: `${receiver.url}/gone`,
    });
    expect(enabled.body.data.target).toEqual({ url: `${receiver.url}/gone`, disabled: false, wasDisabled: true });
    receiver.respond = () => 200;
    expect(
      (
        await t.call(
          'POST',
          `/api/v2/chatbots/${id}/webhooks/deliveries/${sent.body.data.delivery.id}/redeliver`,
          token,
        )
      ).status,
    ).toBe(202);
    await receiver.waitFor((all) => all.filter(at('/gone')).length === 2);
  });

  test('scoped like settings: settings:read reads the log, settings:write is needed to send', async () => {
    const { id } = await chatbot({ messagesWebhookUrl: `${receiver.url}/scoped` });
    const reader = (await t.token({ access: 'custom', scopes: ['settings:read'] })).token;
    expect((await t.call('GET', `/api/v2/chatbots/${id}/webhooks/deliveries`, reader)).status).toBe(200);
    const denied = await t.call('POST', `/api/v2/chatbots/${id}/webhooks/test`, reader, { event: 'message' });
    expect(denied.status).toBe(403);
    expect(denied.body.error.details.requiredScopes).toEqual(['settings:write']);
  });
});
