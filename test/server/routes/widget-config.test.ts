/**
 * `GET /api/widget/{chatbotId}/config` gives the widget what it draws with and nothing else:
 * instructions, personas, prompts, webhook targets and tokens, the identity secret, metadata and
 * extraData never appear. It is cacheable (ETag, short max-age).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let token: string;
let chatbotId: string;

const SECRETS = {
  systemPrompt: 'SECRET-SYSTEM-PROMPT',
  userPrompt: 'SECRET-USER-PROMPT {question}',
  extraData: 'SECRET-EXTRA-DATA',
  metadataValue: 'SECRET-METADATA',
  webhookUrl: 'https://hooks.example.com/SECRET-WEBHOOK-PATH',
  webhookToken: 'SECRET-WEBHOOK-TOKEN',
  instruction: 'SECRET-INSTRUCTION-TEXT',
  persona: 'SECRET-PERSONA-TEXT',
};

beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  const created = await t.call('POST', '/api/v2/chatbots', token, {
    title: 'Shop',
    settings: {
      general: {
        systemPrompt: SECRETS.systemPrompt,
        userPrompt: SECRETS.userPrompt,
        extraData: SECRETS.extraData,
        metadata: { plan: SECRETS.metadataValue },
      },
      appearance: { welcomeMessage: 'Welcome!', brandColor: '#112233' },
      localization: { localization: { locale: 'de', chatMessage: { botName: 'Shopbot' } } },
    },
  });
  chatbotId = created.body.data.chatbot.id;
  const base = `/api/v2/chatbots/${chatbotId}`;
  const hooks = await t.call('PATCH', `${base}/settings/webhooks`, token, {
    webhookUrl: SECRETS.webhookUrl,
    webhookToken: SECRETS.webhookToken,
    messagesWebhookToken: SECRETS.webhookToken,
  });
  // The plan may not include webhooks; either way nothing of them may leak.
  expect([200, 403]).toContain(hooks.status);
  const instruction = await t.call('POST', `${base}/instructions`, token, {
    title: 'Tone',
    instructions: SECRETS.instruction,
  });
  await t.call('POST', `${base}/instructions/${instruction.body.data.instruction.id}/use`, token);
  const persona = await t.call('POST', `${base}/personas`, token, { title: 'Bob', instructions: SECRETS.persona });
  await t.call('POST', `${base}/personas/${persona.body.data.persona.id}/use`, token);
  const secret = await t.call('POST', `${base}/identity-secret`, token);
  expect(secret.body.data.identitySecret.secret).toMatch(/^pis_/);
  (SECRETS as Record<string, string>).identitySecret = secret.body.data.identitySecret.secret;
  await t.call('POST', `${base}/starters`, token, { title: 'Refunds', description: 'When are refunds paid?' });
});
afterAll(async () => {
  await t.close();
});

test('only what the widget needs: appearance, texts, starters; never prompts, instructions, personas, webhooks, secrets, metadata, extraData', async () => {
  const res = await t.call('GET', `/api/widget/${chatbotId}/config`);
  expect(res.status).toBe(200);
  const config = res.body.data;
  expect(config).toMatchObject({
    chatbotId,
    name: 'Shopbot',
    locale: 'de',
    appearance: { welcomeMessage: 'Welcome!', brandColor: '#112233' },
  });
  expect(config.starters).toMatchObject([{ title: 'Refunds', description: 'When are refunds paid?' }]);
  const text = JSON.stringify(res.body);
  for (const [name, value] of Object.entries(SECRETS)) expect(text, name).not.toContain(value);
  for (const key of [
    'systemPrompt',
    'userPrompt',
    'extraData',
    'metadata',
    'webhook',
    'promptId',
    'personaId',
    'instructions',
    'secret',
    'allowedDomains',
  ]) {
    expect(text, key).not.toMatch(new RegExp(`"${key}`, 'i'));
  }
});

test('cacheable: an ETag, a short max-age and a day of stale-while-revalidate; the same ETag answers 304; a change gives a new one', async () => {
  const first = await t.call('GET', `/api/widget/${chatbotId}/config`);
  const etag = first.headers.etag as string;
  expect(etag).toMatch(/^".+"$/);
  expect(first.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=86400');
  const again = await t.call('GET', `/api/widget/${chatbotId}/config`, null, undefined, { 'if-none-match': etag });
  expect(again.status).toBe(304);
  await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/appearance`, token, { welcomeMessage: 'Hello again' });
  const changed = await t.call('GET', `/api/widget/${chatbotId}/config`, null, undefined, { 'if-none-match': etag });
  expect(changed.status).toBe(200);
  expect(changed.headers.etag).not.toBe(etag);
  expect((await t.call('GET', '/api/widget/nope/config')).status).toBe(404);
});

test('the English texts a chatbot starts with stay in its v2 settings, and its widget config leaves them to the widget', async () => {
  const created = await t.call('POST', '/api/v2/chatbots', token, {
    title: 'Laden',
    settings: { localization: { localization: { locale: 'de' } } },
  });
  const id = created.body.data.chatbot.id;
  const settings = (await t.call('GET', `/api/v2/chatbots/${id}`, token)).body.data.chatbot.settings;
  expect(settings).toMatchObject({
    welcomeMessage: 'Hi! How can I help you today?',
    placeholderText: 'Ask a question…',
    watermarkText: 'Powered by Parley',
  });
  const config = (await t.call('GET', `/api/widget/${id}/config`)).body.data;
  expect(config.locale).toBe('de');
  expect([config.appearance.welcomeMessage, config.appearance.placeholderText, config.watermark.text]).toEqual([
    null,
    null,
    null,
  ]);
  await t.call('PATCH', `/api/v2/chatbots/${id}/settings/appearance`, token, {
    placeholderText: 'Ihre Frage …',
    welcomeMessage: null,
  });
  const changed = (await t.call('GET', `/api/widget/${id}/config`, null, undefined, { 'cache-control': 'no-cache' }))
    .body.data;
  expect([changed.appearance.welcomeMessage, changed.appearance.placeholderText]).toEqual(['', 'Ihre Frage …']);
  expect((await t.call('GET', `/api/v2/chatbots/${id}`, token)).body.data.chatbot.settings).toMatchObject({
    welcomeMessage: null,
    placeholderText: 'Ihre Frage …',
  });
});

test("readable by the widget's credentialed request from the page (it rides widget.js's connection), with resource timing; a refused origin reads only its refusal", async () => {
  const page = await t.call('GET', `/api/widget/${chatbotId}/config`, null, undefined, {
    origin: 'https://shop.example',
  });
  expect(page.status).toBe(200);
  expect(page.headers['access-control-allow-origin']).toBe('https://shop.example');
  expect(page.headers['access-control-allow-credentials']).toBe('true');
  expect(page.headers['timing-allow-origin']).toBe('*');
  // An unknown chatbot's error is readable by that same request (no second try without credentials).
  const unknown = await t.call('GET', '/api/widget/nope/config', null, undefined, { origin: 'https://shop.example' });
  expect(unknown.status).toBe(404);
  expect(unknown.headers['access-control-allow-credentials']).toBe('true');
  const created = await t.call('POST', '/api/v2/chatbots', token, {
    title: 'Guarded',
    settings: { general: { allowedDomains: ['shop.example'] } },
  });
  const guarded = created.body.data.chatbot.id;
  const refused = await t.call('GET', `/api/widget/${guarded}/config`, null, undefined, {
    origin: 'https://evil.test',
  });
  expect([refused.status, refused.body.error.code]).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
  expect(refused.headers['access-control-allow-origin']).toBe('https://evil.test');
  expect(refused.headers['access-control-allow-credentials']).toBe('true');
  expect(refused.body.data).toBeUndefined();
});
