/**
 * The agent console at /demo used carelessly, on a flaky network, by a hostile visitor: HTML in
 * a visitor's message shows as text; a slow answer for the conversation opened first never
 * shows under the one opened after it; a dropped stream comes back by itself and the list
 * catches up; a pasted token without conversations:read says why the console is not live. And
 * what an agent needs to pick a conversation: who the visitor is, the latest message and its
 * time, the condition, and which ones have messages nobody on the team has read.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AckFrame } from '../../shared/protocol.js';
import { chatbotWithKnowledge, newSession, startLiveApp, visitor, type LiveApp } from '../helpers/widget.js';
import { launch, screenshot, type Browser } from './helpers.js';

let app: LiveApp;
let chatbotId: string;
let browser: Browser;

beforeAll(async () => {
  app = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(app);
  browser = await launch({ viewport: { width: 1280, height: 1000 } });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function visitorSays(text: string) {
  const v = await visitor(app.url, (await newSession(app, chatbotId)).token);
  v.send({ type: 'message.send', clientId: `c-${Math.random()}`, text });
  const ack = await v.waitFor<AckFrame>((f) => f.type === 'ack');
  await v.waitFor((f) => f.type === 'answer.done');
  v.close();
  return ack.conversationId;
}

async function connectConsole(token: string) {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${app.url}/demo?chatbot=${chatbotId}`);
  await page.getByLabel(/API token/).fill(token);
  await page.getByRole('button', { name: 'Connect' }).click();
  return { page, errors };
}

it(
  'shows HTML as text, keeps a slow conversation out of the one opened after it, and comes back after a dropped stream',
  { timeout: 90_000 },
  async () => {
    const hostile = '<img src=x onerror="window.__xss=1"><b>bold?</b>';
    const first = await visitorSays(hostile);
    const second = await visitorSays('When are refunds paid?');
    const { page, errors } = await connectConsole(app.ownerToken);
    await page.getByText('Agent console (live)').waitFor();
    const row = (id: string) => page.locator(`.threads [data-thread-id="${id}"]`);
    await row(first).waitFor();

    // The first conversation answers slowly; the agent has already moved on to the second.
    let released!: () => void;
    const held = new Promise<void>((resolve) => (released = resolve));
    await page.route(`**/conversations/${first}/messages*`, async (route) => {
      await held;
      await route.continue();
    });
    const slow = page.waitForResponse((r) => r.url().includes(`/conversations/${first}/messages`));
    await row(first).click();
    await row(second).click();
    await page.locator('.log li', { hasText: 'When are refunds paid?' }).waitFor();
    released();
    await (await slow).finished();
    // Two frames: the response's promise chain has run and the console has drawn what it did with it.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(await page.locator('.log').textContent()).not.toContain('bold?');
    await page.unroute(`**/conversations/${first}/messages*`);

    await row(first).click();
    await page.locator('.log li', { hasText: 'bold?' }).waitFor();
    expect(await page.locator('.log li', { hasText: 'bold?' }).first().textContent()).toContain(hostile);
    expect(await page.locator('.log img, .log b:not(:first-child)').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();

    // The network drops the stream: the console reconnects and lists what came meanwhile.
    for (const ws of app.app.websocketServer.clients) ws.terminate();
    const third = await visitorSays('Is shipping back free?');
    await page.getByText('Agent console (live)').waitFor({ timeout: 20_000 });
    await row(third).waitFor({ timeout: 20_000 });
    await page.locator('.console').scrollIntoViewIfNeeded();
    await screenshot(page, 'demo-console-reconnected');
    expect(errors).toEqual([]);
    await page.close();
  },
);

it(
  'a pasted token without conversations:read says why the console is not live, and the page still works',
  { timeout: 60_000 },
  async () => {
    const { token } = await app.token({ access: 'custom', scopes: ['chatbots:read', 'chatbots:write'] });
    const { page, errors } = await connectConsole(token);
    await page.getByText('Agent console (stopped)').waitFor();
    expect(await page.locator('.console [role=alert]').textContent()).toContain('conversations:read');
    await page.locator('.snippet').waitFor();
    await page.locator('.console').scrollIntoViewIfNeeded();
    await screenshot(page, 'demo-console-wrong-scope');
    expect(errors).toEqual([]);
    await page.close();
  },
);

it(
  'lists each conversation by visitor, latest message, time and condition, with an unread marker the team shares',
  { timeout: 90_000 },
  async () => {
    const base = (id: string) => `/api/v2/chatbots/${chatbotId}/conversations/${id}`;
    const named = await visitorSays('Where is my order #1234?');
    expect(
      (
        await app.call('PATCH', base(named), app.ownerToken, {
          visitor: { name: 'Dana Scully', email: 'dana@example.com' },
        })
      ).status,
    ).toBe(200);
    const mailOnly = await visitorSays('Can I pay by invoice?');
    expect(
      (await app.call('PATCH', base(mailOnly), app.ownerToken, { visitor: { email: 'li@example.com' } })).status,
    ).toBe(200);
    const anonymous = await visitorSays('When are refunds paid?');
    expect((await app.call('POST', `${base(anonymous)}/escalate`, app.ownerToken)).status).toBe(200);
    // Markup, and a right-to-left override that must not reorder the row around the name.
    const hostileName = '<img src=x onerror="window.__xss=2">Eve \u202Egnp.exe';
    const hostile = await visitorSays('Is shipping back free?');
    expect((await app.call('PATCH', base(hostile), app.ownerToken, { visitor: { name: hostileName } })).status).toBe(
      200,
    );
    expect((await app.call('POST', `${base(hostile)}/take-over`, app.ownerToken)).status).toBe(200);
    expect(
      (
        await app.call('POST', `${base(hostile)}/messages`, app.ownerToken, {
          message: '<script>window.__xss=3</script>Still there?',
        })
      ).status,
    ).toBe(201);

    const { page, errors } = await connectConsole(app.ownerToken);
    await page.getByText('Agent console (live)').waitFor();
    const row = (id: string) => page.locator(`.threads [data-thread-id="${id}"]`);
    await row(hostile).waitFor();

    await expect.poll(() => row(named).locator('.who').textContent()).toBe('Dana Scully');
    expect(await row(named).locator('.preview').textContent()).toMatch(/^AI: /);
    expect(await row(mailOnly).locator('.who').textContent()).toBe('li@example.com');
    expect(await row(anonymous).locator('.who').textContent()).toBe(`Visitor ${anonymous.slice(0, 6)}`);
    expect(await row(anonymous).locator('.badge').allTextContents()).toEqual(expect.arrayContaining(['Escalated']));
    // The visitor's own words, as text: the name and the message, with no element made of them.
    expect(await row(hostile).locator('.who').textContent()).toBe(hostileName);
    expect(
      await row(hostile)
        .locator('.who')
        .evaluate((e) => e.tagName),
    ).toBe('BDI');
    expect(await row(hostile).locator('.preview').textContent()).toBe('<script>window.__xss=3</script>Still there?');
    expect(await row(hostile).locator('.badge').allTextContents()).toEqual(expect.arrayContaining(['Taken over']));
    expect(await page.locator('.threads img, .threads script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    // The most recent activity first, each with its time.
    expect(await page.locator('.threads [data-thread-id]').first().getAttribute('data-thread-id')).toBe(hostile);
    expect(await row(hostile).locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    // Nobody read them yet; opening one reads it, for the whole team (a new console agrees).
    for (const id of [named, mailOnly, anonymous, hostile]) expect(await row(id).getAttribute('class')).toBe('unread');
    await row(named).click();
    await page.locator('.log li', { hasText: 'Where is my order #1234?' }).waitFor();
    expect(await page.locator('.thread-head').textContent()).toContain('dana@example.com');
    await page.locator('.console').scrollIntoViewIfNeeded();
    await screenshot(page, 'demo-console-list');
    const again = await connectConsole(app.ownerToken);
    const rowAgain = (id: string) => again.page.locator(`.threads [data-thread-id="${id}"]`);
    await rowAgain(hostile).waitFor();
    expect(await rowAgain(named).getAttribute('class')).toBeNull();
    expect(await rowAgain(mailOnly).getAttribute('class')).toBe('unread');
    // A new message in a read conversation marks it again.
    await rowAgain(mailOnly).click();
    await again.page.locator('.log li', { hasText: 'Can I pay by invoice?' }).waitFor();
    expect(
      (await app.call('POST', `${base(named)}/messages`, app.ownerToken, { message: 'One more thing' })).status,
    ).toBe(201);
    await expect.poll(() => rowAgain(named).getAttribute('class')).toBe('unread');
    expect([...errors, ...again.errors]).toEqual([]);
    await page.close();
    await again.page.close();
  },
);

it(
  'a burst of changes while the list is being read makes one more read, not one per change',
  { timeout: 60_000 },
  async () => {
    const { page, errors } = await connectConsole(app.ownerToken);
    await page.getByText('Agent console (live)').waitFor();
    await page.locator('.threads [data-thread-id]').first().waitFor();
    // The next list read hangs until released; five conversations start meanwhile (each rings 3+ times).
    let reads = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/conversations?limit=50', async (route) => {
      reads++;
      if (reads === 1) await held;
      await route.continue();
    });
    const started: string[] = [];
    started.push(await visitorSays('Is shipping back free?'));
    await expect.poll(() => reads).toBe(1);
    for (let i = 0; i < 4; i++) started.push(await visitorSays('When are refunds paid?'));
    release();
    for (const id of started) await page.locator(`.threads [data-thread-id="${id}"]`).waitFor();
    expect(reads).toBe(2);
    await page.unroute('**/conversations?limit=50');
    expect(errors).toEqual([]);
    await page.close();
  },
);

it(
  'shows one badge for the current condition, offers only the actions that apply, and names the team member as visitors see them, never by e-mail',
  { timeout: 90_000 },
  async () => {
    const base = (id: string) => `/api/v2/chatbots/${chatbotId}/conversations/${id}`;
    const id = await visitorSays('I need a person, please.');
    expect((await app.call('POST', `${base(id)}/escalate`, app.ownerToken)).status).toBe(200);
    // A reply from a member with no display name yet: the widget shows the team's text, so does the console.
    expect((await app.call('PATCH', '/api/v2/me', app.ownerToken, { name: null })).status).toBe(200);
    expect(
      (await app.call('POST', `${base(id)}/replies`, app.ownerToken, { message: 'Looking into it.' })).status,
    ).toBe(201);
    expect((await app.call('POST', `${base(id)}/switch-to-ai`, app.ownerToken)).status).toBe(200);
    expect((await app.call('POST', `${base(id)}/escalate`, app.ownerToken)).status).toBe(200);

    const { page, errors } = await connectConsole(app.ownerToken);
    await page.getByText('Agent console (live)').waitFor();
    const row = page.locator(`.threads [data-thread-id="${id}"]`);
    await row.click();
    await page.locator('.log li', { hasText: 'Looking into it.' }).waitFor();
    expect(await page.locator('.log li', { hasText: 'Looking into it.' }).locator('b').textContent()).toBe(
      'Support team',
    );
    expect(await page.locator('.log').textContent()).not.toContain('@');
    const button = (name: string) => page.locator('.actions button', { hasText: name });
    const enabled = async () =>
      Object.fromEntries(
        await Promise.all(
          ['Take over', 'Hand back to AI', 'Resolve'].map(async (n) => [n, await button(n).isEnabled()]),
        ),
      );
    const badges = () => page.locator('.thread-head .badge').allTextContents();
    expect(await badges()).toEqual(['Escalated']);
    expect(await enabled()).toEqual({ 'Take over': true, 'Hand back to AI': true, Resolve: true });

    // The agent names themself; taking over an escalated conversation shows it taken over, by them.
    await page.getByLabel('Your name, as visitors see it').fill('Sam from Acme');
    await page.getByRole('button', { name: 'Save name' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Save name' }).isDisabled()).toBe(true);
    await button('Take over').click();
    await expect.poll(badges).toEqual(['Taken over']);
    expect(await row.locator('.badge').allTextContents()).toEqual(['Taken over']);
    expect(await page.locator('.thread-head .by').textContent()).toBe('by Sam from Acme');
    expect(await enabled()).toEqual({ 'Take over': false, 'Hand back to AI': true, Resolve: true });
    await page.getByLabel('Reply', { exact: true }).fill('Hi, Sam here.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.log li', { hasText: 'Hi, Sam here.' }).waitFor();
    expect(await page.locator('.log li', { hasText: 'Hi, Sam here.' }).locator('b').textContent()).toBe(
      'Sam from Acme',
    );
    // The earlier reply is the same person: it shows under their name now, as the widget shows it.
    expect(await page.locator('.log li', { hasText: 'Looking into it.' }).locator('b').textContent()).toBe(
      'Sam from Acme',
    );
    await page.locator('.console').scrollIntoViewIfNeeded();
    await screenshot(page, 'demo-console-taken-over');

    await button('Resolve').click();
    await expect.poll(badges).toEqual(['Resolved']);
    expect(await enabled()).toEqual({ 'Take over': false, 'Hand back to AI': false, Resolve: false });
    expect(await page.getByLabel('Reply', { exact: true }).isDisabled()).toBe(true);
    await screenshot(page, 'demo-console-resolved');
    expect(errors).toEqual([]);
    await page.close();
    expect((await app.call('PATCH', '/api/v2/me', app.ownerToken, { name: null })).status).toBe(200);
  },
);
