/**
 * The console's team pages as a member sees them (role and chatbots as the API's, shared/scopes.ts):
 * leads, analytics, team, tokens, webhooks and install of the chatbot they were added to, nothing
 * of another chatbot, and no button their role may not use. Each refusal is also forced through
 * the API from the member's own browser session (cookie and CSRF header, as the console sends
 * them): the API refuses it, the page shows no error. One server, one browser, one HTTPS webhook
 * receiver for the file; axe finds nothing; screenshots in test-artifacts/console/member-*.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newId } from '../../server/domain/ids.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import {
  axeViolations,
  consoleScreenshots,
  startConsole,
  type ConsoleHarness,
  type ConsoleUser,
} from './console-helpers.js';

let h: ConsoleHarness;
let receiver: WebhookReceiver;
let shop: string;
let other: string;
let member: ConsoleUser;

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.respond = () => 200;
  h = await startConsole({
    env: { ALLOW_PRIVATE_FETCH: '127.0.0.0/8', NODE_EXTRA_CA_CERTS: receiver.caFile, WEBHOOK_POLL_MS: '20' },
  });
  shop = await h.createChatbot('Acme shop');
  other = await h.createChatbot('Owner only');
  for (const [chatbotId, email] of [
    [shop, 'ada@example.test'],
    [other, 'secret-lead@example.test'],
  ])
    await h.app.app.services.store.resources.leads.insert({
      id: newId(),
      chatbotId,
      conversationId: null,
      chatUserId: null,
      name: null,
      email,
      phone: null,
      customFields: {},
      source: 'widget',
      createdAt: new Date().toISOString(),
    });
  // One conversation on the member's chatbot, two on the other: the figures tell them apart.
  for (const [chatbotId, message] of [
    [shop, 'How long do refunds take?'],
    [other, 'Do you ship to Norway?'],
    [other, 'Is there a shop in Oslo?'],
  ])
    expect(
      (await h.app.call('POST', `/api/v2/chatbots/${chatbotId}/messages`, h.app.ownerToken, { message })).status,
    ).toBe(201);
  member = await h.addUser('member', [shop]);
}, 120_000);
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

/** A call of the v2 API from the page, with the member's session cookie and CSRF token. */
async function force(page: Page, method: string, path: string, body?: unknown) {
  return page.evaluate(
    async ([method, path, body]) => {
      const session = (await (await fetch('/api/v2/session')).json()) as { data: { csrfToken: string } };
      const res = await fetch(`/api/v2${path}`, {
        method,
        headers: {
          'x-csrf-token': session.data.csrfToken,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const envelope = (await res.json().catch(() => null)) as { error?: { code: string } } | null;
      return { status: res.status, code: envelope?.error?.code ?? null };
    },
    [method, path, body] as const,
  );
}

it(
  "a member reads their chatbot's leads and analytics, and nothing of a chatbot they are not on",
  { timeout: 90_000 },
  async () => {
    const { page, problems, close } = await h.open({ user: member, path: `/console/${shop}/leads` });
    await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
    await page.getByRole('cell', { name: 'ada@example.test' }).waitFor();
    expect(await page.getByRole('table').locator('tbody tr').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Export CSV' }).isEnabled()).toBe(true);
    // Only their chatbot in the switcher; the account pages a member reads are in the nav.
    expect(await page.getByRole('combobox', { name: 'Chatbot' }).locator('option').allTextContents()).toEqual([
      'Acme shop',
    ]);
    const nav = page.getByRole('navigation', { name: 'Console' });
    for (const name of ['Leads', 'Analytics', 'Team', 'API tokens', 'Webhooks', 'Install'])
      await nav.getByRole('link', { name }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'member-leads');

    // Another chatbot's pages, opened by address: said in words, its leads never shown.
    await page.goto(`${h.app.url}/console/${other}/leads`);
    await page.getByText('This chatbot does not exist, or you have no access to it.').waitFor();
    expect(await page.content()).not.toContain('secret-lead@example.test');
    await page.goto(`${h.app.url}/console/${other}/analytics`);
    await page.getByText('This chatbot does not exist, or you have no access to it.').waitFor();
    for (const path of [`/chatbots/${other}/leads`, `/chatbots/${other}/analytics`])
      expect((await force(page, 'GET', path)).status, path).toBe(404);
    // Leads are read, never deleted, by a member.
    const lead = (await h.app.call('GET', `/api/v2/chatbots/${shop}/leads`, h.app.ownerToken)).body.data.leads[0];
    expect(await force(page, 'DELETE', `/chatbots/${shop}/leads/${lead.id}?confirm=true`)).toEqual({
      status: 403,
      code: 'TOKEN_SCOPE_NOT_ALLOWED',
    });

    // Their own chatbot's analytics: its one conversation, not the other chatbot's two.
    await page.goto(`${h.app.url}/console/${shop}/analytics`);
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
    await page.locator('[data-figure="conversations"]').filter({ hasText: '1' }).waitFor();
    expect((await page.locator('[data-figure="conversations"]').textContent())!.trim()).toBe('1');
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await close();
  },
);

it('a member sees the team but cannot add, change or remove anyone', { timeout: 60_000 }, async () => {
  const { page, problems, close } = await h.open({ user: member, path: `/console/${shop}/members` });
  await page.getByRole('heading', { name: 'Team', level: 1 }).waitFor();
  await page.getByText('Your role can see the team but not change it.').waitFor();
  await page.getByRole('listitem').filter({ hasText: member.email }).waitFor();
  expect(await page.getByRole('button', { name: 'Add to the team' }).count()).toBe(0);
  expect(await page.getByRole('combobox', { name: /^Role of/ }).count()).toBe(0);
  expect(await page.getByRole('button', { name: /^Remove:/ }).count()).toBe(0);
  expect(await axeViolations(page)).toEqual([]);
  await consoleScreenshots(page, 'member-team');

  expect(await force(page, 'POST', `/chatbots/${shop}/members`, { email: 'eve@team.test', role: 'admin' })).toEqual({
    status: 403,
    code: 'TOKEN_SCOPE_NOT_ALLOWED',
  });
  const members = (await h.app.call('GET', `/api/v2/chatbots/${shop}/members`, h.app.ownerToken)).body.data
    .members as Array<{ email: string; id: string }>;
  expect(members.map((m) => m.email)).not.toContain('eve@team.test');
  const self = members.find((m) => m.email === member.email)!;
  expect(await force(page, 'PATCH', `/chatbots/${shop}/members/${self.id}`, { role: 'admin' })).toEqual({
    status: 403,
    code: 'TOKEN_SCOPE_NOT_ALLOWED',
  });
  expect(problems).toEqual([]);
  await close();
});

it(
  "a member makes tokens only within their role, sees only their own, and cannot revoke the owner's",
  { timeout: 60_000 },
  async () => {
    const owners = await h.app.call('POST', '/api/v2/tokens', h.app.ownerToken, {
      name: 'Owner nightly',
      access: 'full',
    });
    expect(owners.status).toBe(201);
    const { page, problems, close } = await h.open({ user: member, path: '/console/tokens' });
    await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
    await page.getByText('No tokens yet.').waitFor();
    expect(await page.getByText('Owner nightly').count()).toBe(0);
    // Standard and Full hold scopes a member lacks: only chosen scopes are offered, and only theirs.
    expect(await page.getByRole('radio', { name: /^Standard/ }).count()).toBe(0);
    expect(await page.getByRole('radio', { name: /^Full/ }).count()).toBe(0);
    expect(await page.getByRole('radio', { name: /Chosen scopes/ }).isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: 'leads:read' }).waitFor();
    for (const scope of ['settings:write', 'members:write', 'knowledge:delete', 'billing:read'])
      expect(await page.getByRole('checkbox', { name: scope }).count(), scope).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'member-tokens', { fullPage: true });

    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('My leads export');
    await page.getByRole('checkbox', { name: 'leads:read' }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = await page.getByLabel('Token', { exact: true }).inputValue();
    expect((await h.app.call('GET', `/api/v2/chatbots/${shop}/leads`, secret)).status).toBe(200);
    // The member's chatbots bound the token too.
    expect((await h.app.call('GET', `/api/v2/chatbots/${other}/leads`, secret)).status).toBe(404);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('listitem').filter({ hasText: 'My leads export' }).waitFor();

    expect(await force(page, 'POST', '/tokens', { name: 'Everything', access: 'full' })).toEqual({
      status: 403,
      code: 'TOKEN_SCOPE_NOT_ALLOWED',
    });
    expect((await force(page, 'DELETE', `/tokens/${owners.body.data.id}`)).status).toBe(404);
    expect((await h.app.call('GET', '/api/v2/me', owners.body.data.token)).status).toBe(200);
    expect(problems).toEqual([]);
    await close();
  },
);

it(
  'a member follows the webhook log and the install snippets, but changes, tests and resends nothing',
  { timeout: 60_000 },
  async () => {
    // The owner sends a test that is delivered.
    const url = `${receiver.url}/member-check`;
    expect(
      (
        await h.app.call('PATCH', `/api/v2/chatbots/${shop}/settings/webhooks`, h.app.ownerToken, {
          webhookUrl: url,
        })
      ).status,
    ).toBe(200);
    const before = receiver.received.length;
    const sent = await h.app.call('POST', `/api/v2/chatbots/${shop}/webhooks/test`, h.app.ownerToken, {
      event: 'lead',
    });
    expect(sent.status).toBe(202);
    await receiver.waitFor((r) => r.length > before);

    const { page, problems, close } = await h.open({ user: member, path: `/console/${shop}/webhooks` });
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('Your role can follow the deliveries but not change where they go').waitFor();
    const entry = page.getByRole('list', { name: 'Delivery log' }).getByRole('listitem').first();
    await entry.getByText('Delivered').waitFor();
    expect(await entry.getByRole('button', { name: /^Send again/ }).count()).toBe(0);
    expect(await page.getByLabel('Webhook URL').inputValue()).toBe(url);
    expect(await page.getByLabel('Webhook URL').isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Send test' }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'member-webhooks', { fullPage: true });

    const delivery = sent.body.data.delivery.id;
    for (const [method, path, body] of [
      ['PATCH', `/chatbots/${shop}/settings/webhooks`, { webhookUrl: 'https://evil.example/x' }],
      ['POST', `/chatbots/${shop}/webhooks/test`, { event: 'lead' }],
      ['POST', `/chatbots/${shop}/webhooks/deliveries/${delivery}/redeliver`, undefined],
    ] as const)
      expect(await force(page, method, path, body), path).toEqual({ status: 403, code: 'TOKEN_SCOPE_NOT_ALLOWED' });
    const settings = await h.app.call('GET', `/api/v2/chatbots/${shop}/settings`, h.app.ownerToken);
    expect(settings.body.data.settings.webhookUrl).toBe(url);
    expect(receiver.received.length).toBe(before + 1);

    // Install: the snippet is theirs to copy; another chatbot's check is refused.
    await page.goto(`${h.app.url}/console/${shop}/install`);
    await page.getByRole('heading', { name: 'Install', level: 1 }).waitFor();
    expect(await page.locator('pre[aria-label="Plain HTML"]').textContent()).toContain(`data-chatbot-id="${shop}"`);
    await page.getByRole('button', { name: 'Check my site' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'member-install', { fullPage: true });
    expect(
      (await force(page, 'POST', `/chatbots/${other}/install-check`, { url: 'https://example.test/' })).status,
    ).toBe(404);
    expect(problems).toEqual([]);
    await close();
  },
);
