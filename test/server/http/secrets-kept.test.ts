/**
 * Secrets stay secret: webhook tokens (the chatbot's and a thread's) and the model's instructions
 * are set to known values, then every GET route of the OpenAPI document (and the responses of the
 * writes that set them) is read with a full token and with a token lacking `settings:read`. No
 * response ever holds a whole token; without `settings:read` no response holds the instructions
 * or a token's mask. The database files never hold a token in plain text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SCOPES } from '../../../shared/scopes.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

const TOKENS = {
  webhookToken: 'global-token-4f1d9c2b7a1111',
  messagesWebhookToken: 'messages-token-8e2a6b3c2222',
  escalationWebhookToken: 'escalation-token-9c4d3333',
  leadsWebhookToken: 'leads-token-7b5e1f0a4444',
};
const THREAD_TOKEN = 'thread-token-3a9f8d2e5555';
const SYSTEM_PROMPT = 'You are Captain Secretive; never mention the zebra-7731 discount.';
const USER_PROMPT = 'Answer the question {question} as zebra-7731 would';
const ALL_TOKENS = [...Object.values(TOKENS), THREAD_TOKEN];

let t: TestApp;
let full: string;
let noSettings: string;
const ids: Record<string, string> = {};
/** Bodies of the writes made while setting up, checked like the reads. */
const writes: { what: string; body: string }[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  full = (await t.token()).token;
  noSettings = (await t.token({ access: 'custom', scopes: SCOPES.filter((s) => s !== 'settings:read') })).token;
  const record = (what: string, res: { status: number; body: unknown }) => {
    expect(res.status, what).toBeLessThan(300);
    writes.push({ what, body: JSON.stringify(res.body) });
    return res.body as any;
  };
  const created = record(
    'create chatbot',
    await t.call('POST', '/api/v2/chatbots', full, {
      title: 'Vault',
      settings: {
        general: { systemPrompt: SYSTEM_PROMPT, userPrompt: USER_PROMPT },
        webhooks: { webhookUrl: 'https://hooks.example.com/a', ...TOKENS },
      },
    }),
  );
  ids.chatbotId = created.data.chatbot.id;
  const base = `/api/v2/chatbots/${ids.chatbotId}`;
  record(
    'patch webhooks',
    await t.call('PATCH', `${base}/settings/webhooks`, full, { leadsWebhookUrl: 'https://hooks.example.com/leads' }),
  );
  const conversation = record(
    'create conversation',
    await t.call('POST', `${base}/conversations`, full, {
      webhookUrl: 'https://hooks.example.com/t',
      webhookToken: THREAD_TOKEN,
    }),
  );
  ids.threadId = conversation.data.conversation.threadId;
  const sent = record(
    'send message',
    await t.call('POST', `${base}/conversations/${ids.threadId}/messages`, full, {
      message: 'Is there a discount?',
      visitor: { email: 'v@example.com' },
    }),
  );
  ids.messageId = sent.data.message.id;
  record(
    'patch conversation',
    await t.call('PATCH', `${base}/conversations/${ids.threadId}`, full, { totalMessagesRead: 1 }),
  );
  ids.leadId = (await t.call('GET', `${base}/leads`, full)).body.data.leads[0]?.id ?? 'none';
});
afterAll(() => t.close());

async function everyGet(token: string) {
  const doc = (await t.call('GET', '/api/v2/openapi.json')).body;
  const out: { what: string; status: number; body: string }[] = [];
  for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
    if (!ops.get) continue;
    const url = '/api/v2' + path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? 'unknown');
    const res = await t.call('GET', url, token);
    out.push({ what: `GET ${url}`, status: res.status, body: JSON.stringify(res.body) });
  }
  return out;
}

describe('secrets in responses', () => {
  test('no response holds a whole webhook token; settings:read sees them masked to the last 4 characters', async () => {
    const reads = await everyGet(full);
    expect(reads.filter((r) => r.status === 200).length).toBeGreaterThan(15);
    for (const r of [...reads, ...writes])
      for (const secret of ALL_TOKENS) expect(r.body.includes(secret), `${r.what} holds ${secret}`).toBe(false);
    const settings = (await t.call('GET', `/api/v2/chatbots/${ids.chatbotId}/settings`, full)).body.data.settings;
    for (const [key, value] of Object.entries(TOKENS)) expect(settings[key], key).toBe(`****${value.slice(-4)}`);
    expect(settings.systemPrompt).toBe(SYSTEM_PROMPT);
    const thread = (await t.call('GET', `/api/v2/chatbots/${ids.chatbotId}/conversations/${ids.threadId}`, full)).body
      .data.conversation;
    expect(thread.webhookToken).toBe('****5555');
  });

  test('without settings:read no response holds the instructions or the tokens, not even masked', async () => {
    const reads = await everyGet(noSettings);
    const chatbot = reads.find((r) => r.what === `GET /api/v2/chatbots/${ids.chatbotId}`)!;
    expect(chatbot.status).toBe(200);
    for (const r of reads) {
      expect(r.body.includes('zebra-7731'), `${r.what} holds the instructions`).toBe(false);
      for (const value of Object.values(TOKENS))
        expect(r.body.includes(`****${value.slice(-4)}`), `${r.what} holds a mask`).toBe(false);
      for (const secret of ALL_TOKENS) expect(r.body.includes(secret), `${r.what} holds ${secret}`).toBe(false);
    }
    const settings = JSON.parse(chatbot.body).data.chatbot.settings;
    for (const key of [...Object.keys(TOKENS), 'systemPrompt', 'userPrompt'])
      expect(settings, key).not.toHaveProperty(key);
    expect(settings.webhookUrl).toBe('https://hooks.example.com/a');
  });

  test('a settings PATCH that sends a mask back keeps the token; a new value replaces it', async () => {
    const base = `/api/v2/chatbots/${ids.chatbotId}`;
    const shown = (await t.call('GET', `${base}/settings`, full)).body.data.settings;
    expect(
      (await t.call('PATCH', `${base}/settings/webhooks`, full, { webhookToken: shown.webhookToken })).status,
    ).toBe(200);
    expect((await t.app.services.store.chatbots.get(ids.chatbotId))!.settings.webhookToken).toBe(TOKENS.webhookToken);
    expect(
      (await t.call('PATCH', `${base}/settings/webhooks`, full, { webhookToken: 'brand-new-token-6666' })).body.data
        .chatbot.settings.webhookToken,
    ).toBe('****6666');
    expect((await t.app.services.store.chatbots.get(ids.chatbotId))!.settings.webhookToken).toBe(
      'brand-new-token-6666',
    );
    await t.call('PATCH', `${base}/settings/webhooks`, full, { webhookToken: TOKENS.webhookToken });
  });
});

describe('webhook tokens at rest', () => {
  test('the stored rows hold them encrypted; the domain reads them back whole', async () => {
    const row = await t.database.db
      .selectFrom('chatbots')
      .select('settings')
      .where('id', '=', ids.chatbotId)
      .executeTakeFirstOrThrow();
    const thread = await t.database.db
      .selectFrom('conversations')
      .select('webhook_token')
      .where('id', '=', ids.threadId)
      .executeTakeFirstOrThrow();
    for (const secret of ALL_TOKENS) expect(row.settings + thread.webhook_token, secret).not.toContain(secret);
    expect(thread.webhook_token).toMatch(/^enc:v1\./);
    expect(JSON.parse(row.settings).webhookToken).toMatch(/^enc:v1\./);
    const chatbot = await t.app.services.store.chatbots.get(ids.chatbotId);
    expect(Object.fromEntries(Object.keys(TOKENS).map((k) => [k, chatbot!.settings[k]]))).toEqual(TOKENS);
    expect((await t.app.services.store.conversations.get(ids.threadId))!.webhookToken).toBe(THREAD_TOKEN);
  });

  test('no database file holds a token in plain text', async () => {
    const files = readdirSync(t.dataDir).filter((f) => f.startsWith('test.db'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const bytes = readFileSync(join(t.dataDir, f));
      for (const secret of ALL_TOKENS) expect(bytes.includes(secret), `${f} holds ${secret}`).toBe(false);
    }
  });
});
