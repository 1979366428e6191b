/**
 * Settings: the six section routes and the multi-section PATCH, the ranges of spec section 8 at
 * and just past their boundaries, enumerations, plan features (webhooks, branding), atomicity,
 * localization merging, and fields sent to the wrong section.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  DEFAULT_SETTINGS,
  READ_ONLY_SETTINGS,
  SECTION_FIELDS,
  SETTINGS_SECTIONS,
} from '../../../../shared/settings.js';
import { newId } from '../../../../server/domain/ids.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let token: string;
let chatbotId: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  chatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'settings' })).body.data.chatbot.id;
});
afterAll(() => t.close());

const patch = (section: string, body: unknown, id = chatbotId, tk = token) =>
  t.call('PATCH', `/api/v2/chatbots/${id}/settings/${section}`, tk, body);
const patchAll = (body: unknown, id = chatbotId, tk = token) =>
  t.call('PATCH', `/api/v2/chatbots/${id}/settings`, tk, body);
const get = async (id = chatbotId, tk = token) => (await t.call('GET', `/api/v2/chatbots/${id}`, tk)).body.data.chatbot;

async function newChatbot(tk = token): Promise<string> {
  return (await t.call('POST', '/api/v2/chatbots', tk, { title: `c-${newId()}` })).body.data.chatbot.id;
}

async function freshAccount() {
  const { account } = await t.app.services.accounts.create(`${newId()}@x.test`);
  const tk = (await t.token({ access: 'full' }, account.id)).token;
  return { accountId: account.id, token: tk, chatbotId: await newChatbot(tk) };
}

function expectRefused(res: { status: number; body: any }, path: (string | number)[]) {
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_FAILED');
  expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
}

describe('each section route', () => {
  test.each([
    [
      'general',
      {
        title: 'Renamed',
        description: 'desc',
        gptModel: 'gpt-4.1',
        creativity: 'CUSTOM',
        temperature: 0.7,
        systemPrompt: 'Be brief',
      },
    ],
    [
      'chat-mode',
      {
        mode: 'HUMAN_ONLY',
        disableSmartFollowUpPrompts: true,
        smartFollowUpPromptsCount: 5,
        hideSources: true,
        hideFeedbackButtons: true,
      },
    ],
    ['localization', { localization: { locale: 'de', learnMore: 'Mehr', chatHome: { home: 'Start' } } }],
    [
      'user-data',
      {
        collectUserDetails: 'ON_ESCALATION',
        collectUserData: { name: false, phone: true },
        disableLeadNotifications: true,
      },
    ],
    [
      'appearance',
      {
        welcomeMessage: 'Hallo',
        brandColor: '#abc',
        fontSize: 16,
        iconPosition: 'BOTTOM_LEFT',
        maxWidth: 500,
        ctaLink: 'https://x.test',
      },
    ],
    [
      'webhooks',
      {
        webhookUrl: 'https://hooks.test/in',
        webhookToken: 'a-secret-token-1234',
        leadsWebhookUrl: 'https://hooks.test/leads',
      },
    ],
  ])('PATCH /settings/%s changes its fields and GET returns them', async (section, body) => {
    const id = await newChatbot();
    const res = await patch(section, body, id);
    expect(res.status).toBe(200);
    const chatbot = await get(id);
    const { title, description, ...settings } = body as Record<string, unknown>;
    if (title !== undefined) expect(chatbot.title).toBe(title);
    if (description !== undefined) expect(chatbot.description).toBe(description);
    // Tokens are shown masked once set (secret-settings.ts).
    expect(chatbot.settings).toMatchObject(
      'webhookToken' in settings ? { ...settings, webhookToken: '****1234' } : settings,
    );
    expect(res.body.data.chatbot).toEqual(chatbot);
    // Untouched fields keep their defaults.
    const untouched = Object.keys(DEFAULT_SETTINGS).filter((k) => !(k in settings));
    for (const k of untouched) expect(chatbot.settings[k], k).toEqual(DEFAULT_SETTINGS[k]);
  });

  test('GET /settings returns every field with title and description', async () => {
    const res = await t.call('GET', `/api/v2/chatbots/${chatbotId}/settings`, token);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data.settings).sort()).toEqual(
      ['description', 'title', ...Object.keys(DEFAULT_SETTINGS)].sort(),
    );
  });

  test('every settings field belongs to exactly one section', () => {
    const owners = new Map<string, string[]>();
    for (const s of SETTINGS_SECTIONS)
      for (const f of Object.keys(SECTION_FIELDS[s])) owners.set(f, [...(owners.get(f) ?? []), s]);
    for (const [field, sections] of owners) expect(sections, field).toHaveLength(1);
    const writable = Object.keys(DEFAULT_SETTINGS).filter((k) => !(k in READ_ONLY_SETTINGS));
    expect(writable.length).toBeGreaterThan(40);
    for (const f of writable) expect(owners.has(f), `${f} has a section`).toBe(true);
    for (const f of Object.keys(READ_ONLY_SETTINGS)) expect(owners.has(f), `${f} is read-only`).toBe(false);
  });

  test('PATCH /settings changes several sections at once', async () => {
    const id = await newChatbot();
    const res = await patchAll(
      {
        general: { topK: 1 },
        'chat-mode': { mode: 'AI_ONLY' },
        appearance: { rtl: true },
        'user-data': { collectUserDetails: 'BEFORE_CONVERSATION' },
      },
      id,
    );
    expect(res.status).toBe(200);
    expect((await get(id)).settings).toMatchObject({
      topK: 1,
      mode: 'AI_ONLY',
      rtl: true,
      collectUserDetails: 'BEFORE_CONVERSATION',
    });
  });

  test('null clears a nullable field; a non-nullable field refuses null', async () => {
    const id = await newChatbot();
    expect((await patch('appearance', { welcomeMessage: null }, id)).status).toBe(200);
    expect((await get(id)).settings.welcomeMessage).toBeNull();
    expectRefused(await patch('appearance', { maxWidth: null }, id), ['maxWidth']);
    expectRefused(await patch('general', { title: null }, id), ['title']);
    expect((await get(id)).settings.maxWidth).toBe(DEFAULT_SETTINGS.maxWidth);
  });

  test('an empty body, or an unknown section, is refused', async () => {
    expect((await patch('general', {})).status).toBe(400);
    expect((await patchAll({})).status).toBe(400);
    expectRefused(await patchAll({ advanced: { topK: 2 } }), ['advanced']);
    const unknownRoute = await patch('advanced', { topK: 2 });
    expect(unknownRoute.status).toBe(404);
  });

  test('strings are not coerced: "3" is not a number, "true" is not a boolean', async () => {
    expectRefused(await patch('general', { topK: '3' }), ['topK']);
    expectRefused(await patch('chat-mode', { hideSources: 'true' }), ['hideSources']);
  });
});

describe('ranges (spec section 8) at and just past the boundaries', () => {
  const cases: [section: string, field: string, ok: unknown[], refused: unknown[]][] = [
    ['general', 'historyCount', [0, 1, 49, 50], [-1, 51, 1.5, 100]],
    ['general', 'topK', [1, 3, 5], [0, 6, -1, 2.5]],
    ['chat-mode', 'smartFollowUpPromptsCount', [1, 3, 5], [0, 6, 1.5]],
    ['general', 'temperature', [0, 0.01, 0.07, 0.29, 0.57, 1, 1.13, 1.99, 2], [-0.01, 2.01, 0.015, 1.005, 3]],
    ['appearance', 'fontSize', [8, 40], [7, 41, 12.5]],
    ['appearance', 'distanceFromBottom', [0, 2000], [-1, 2001, 1.5]],
    ['appearance', 'horizontalDistance', [0, 2000], [-1, 2001, 1.5]],
    // Spec 2.4 types height and maxWidth as numbers: fractions of a pixel are accepted.
    ['appearance', 'height', [200, 300.5, 2000], [199, 2001, 199.99, '300']],
    ['appearance', 'maxWidth', [200, 400.5, 2000], [199, 2001, 2000.01, '400']],
    ['appearance', 'autoOpenChatWindowDelayInDesktop', [0, 600_000], [-1, 600_001, 1.5]],
    ['appearance', 'autoOpenChatWindowDelayInMobile', [0, 600_000], [-1, 600_001, 1.5]],
  ];

  for (const [section, field, ok, refused] of cases) {
    test(`${field}: accepts ${ok.join(', ')}; refuses ${refused.join(', ')}`, async () => {
      const id = await newChatbot();
      for (const value of ok) {
        const res = await patch(section, { [field]: value }, id);
        expect(res.status, `${field}=${value}`).toBe(200);
        expect((await get(id)).settings[field], `${field}=${value}`).toBe(value);
      }
      const kept = (await get(id)).settings[field];
      for (const value of refused) {
        const res = await patch(section, { [field]: value }, id);
        expect(res.status, `${field}=${value}`).toBe(400);
        expectRefused(res, [field]);
      }
      expect((await get(id)).settings[field]).toBe(kept);
    });
  }

  test('smartFollowUpPromptsCount defaults to 3', async () => {
    expect((await get(await newChatbot())).settings.smartFollowUpPromptsCount).toBe(3);
  });

  test('text lengths are bounded', async () => {
    expectRefused(await patch('general', { title: 'x'.repeat(201) }), ['title']);
    expectRefused(await patch('general', { title: '' }), ['title']);
    expectRefused(await patch('appearance', { watermarkText: 'x'.repeat(101) }), ['watermarkText']);
  });

  test('colours and links are checked', async () => {
    expectRefused(await patch('appearance', { brandColor: 'red' }), ['brandColor']);
    expectRefused(await patch('appearance', { brandColor: '#12345' }), ['brandColor']);
    expectRefused(await patch('appearance', { ctaLink: 'javascript:alert(1)' }), ['ctaLink']);
    expect((await patch('appearance', { brandColor: '#A1b2C3' })).status).toBe(200);
  });
});

describe('enumerations', () => {
  test.each([
    ['general', 'gptModel', ['gpt-4.1', 'gpt-4.1-mini'], ['gpt-4', 'gpt-4o', 'GPT-4.1', '']],
    ['general', 'creativity', ['STRICT', 'BALANCED', 'CREATIVE', 'CUSTOM'], ['strict', 'WILD']],
    ['chat-mode', 'mode', ['AI_WITH_HUMAN_ESCALATION', 'AI_ONLY', 'HUMAN_ONLY'], ['AGENT', 'ai_only']],
    [
      'user-data',
      'collectUserDetails',
      ['DONT_COLLECT', 'BEFORE_CONVERSATION', 'DURING_CONVERSATION', 'ON_ESCALATION'],
      ['ALWAYS'],
    ],
    ['appearance', 'iconSize', ['SMALL', 'MEDIUM', 'LARGE'], ['HUGE']],
    ['appearance', 'iconPosition', ['BOTTOM_RIGHT', 'BOTTOM_LEFT'], ['TOP_LEFT']],
    ['appearance', 'autoOpenChatWindowInDesktop', ['ALWAYS_OPEN_WITH_DELAY', 'DONT_OPEN'], ['OPEN']],
    ['appearance', 'autoOpenChatWindowInMobile', ['ALWAYS_OPEN_WITH_DELAY', 'DONT_OPEN'], ['OPEN']],
  ])('%s.%s accepts its members and refuses others', async (section, field, members, others) => {
    const id = await newChatbot();
    for (const m of members) expect((await patch(section, { [field]: m }, id)).status, m).toBe(200);
    for (const o of others) {
      const res = await patch(section, { [field]: o }, id);
      expectRefused(res, [field]);
      expect(res.body.error.details.find((d: { path: string[] }) => d.path[0] === field).message).toContain(members[0]);
    }
    expect((await get(id)).settings[field]).toBe(members.at(-1));
  });

  test('localization.locale accepts the shipped locales and refuses others', async () => {
    expect((await patch('localization', { localization: { locale: 'fr' } })).status).toBe(200);
    expectRefused(await patch('localization', { localization: { locale: 'xx' } }), ['localization', 'locale']);
  });
});

describe('plan features', () => {
  test('webhooks without the add-on: 403 WEBHOOKS_NOT_AVAILABLE, on the section route and inside a multi-section PATCH', async () => {
    const acct = await freshAccount();
    await t.app.services.accounts.setPlan(acct.accountId, { webhooks: false });
    const res = await patch('webhooks', { webhookUrl: 'https://hooks.test/in' }, acct.chatbotId, acct.token);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ ok: false, error: { code: 'WEBHOOKS_NOT_AVAILABLE', hint: expect.any(String) } });
    const multi = await patchAll(
      { general: { title: 'changed' }, webhooks: { webhookUrl: 'https://hooks.test/in' } },
      acct.chatbotId,
      acct.token,
    );
    expect(multi.status).toBe(403);
    expect(multi.body.error.code).toBe('WEBHOOKS_NOT_AVAILABLE');
    const chatbot = await get(acct.chatbotId, acct.token);
    expect(chatbot.settings.webhookUrl).toBeNull();
    expect(chatbot.title).not.toBe('changed');
    // Other sections still work.
    expect((await patch('general', { topK: 2 }, acct.chatbotId, acct.token)).status).toBe(200);
  });

  test('webhook URLs must be HTTPS', async () => {
    for (const field of ['webhookUrl', 'messagesWebhookUrl', 'escalationWebhookUrl', 'leadsWebhookUrl']) {
      for (const url of ['http://hooks.test/in', 'ftp://hooks.test', 'hooks.test/in', 'javascript:alert(1)']) {
        expectRefused(await patch('webhooks', { [field]: url }), [field]);
      }
    }
    expect((await get()).settings.webhookUrl).toBeNull();
  });

  test('without branding removal: hideWatermark:true is 403 PLAN_UPGRADE_REQUIRED; the default value stays allowed', async () => {
    const acct = await freshAccount();
    await t.app.services.accounts.setPlan(acct.accountId, { brandingRemoval: false });
    for (const body of [{ hideWatermark: true }, { watermarkText: 'Mine' }, { watermarkLink: 'https://mine.test' }]) {
      const res = await patch('appearance', body, acct.chatbotId, acct.token);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('PLAN_UPGRADE_REQUIRED');
    }
    const created = await t.call('POST', '/api/v2/chatbots', acct.token, {
      title: 'x',
      settings: { appearance: { hideWatermark: true } },
    });
    expect(created.status).toBe(403);
    expect(created.body.error.code).toBe('PLAN_UPGRADE_REQUIRED');
    expect((await get(acct.chatbotId, acct.token)).settings.hideWatermark).toBe(false);
    expect((await patch('appearance', { hideWatermark: false, rtl: true }, acct.chatbotId, acct.token)).status).toBe(
      200,
    );
  });

  test('with branding removal, hideWatermark:true is applied', async () => {
    const id = await newChatbot();
    expect((await patch('appearance', { hideWatermark: true }, id)).status).toBe(200);
    expect((await get(id)).settings.hideWatermark).toBe(true);
  });
});

describe('atomicity', () => {
  test('a multi-section PATCH with one invalid section changes nothing', async () => {
    const id = await newChatbot();
    const before = await get(id);
    const res = await patchAll(
      { general: { title: 'New title', topK: 2 }, 'chat-mode': { smartFollowUpPromptsCount: 9 } },
      id,
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      expect.objectContaining({ path: ['chat-mode', 'smartFollowUpPromptsCount'] }),
    ]);
    expect(await get(id)).toEqual(before);
  });

  test('a multi-section PATCH refused by a plan rule changes nothing', async () => {
    const acct = await freshAccount();
    await t.app.services.accounts.setPlan(acct.accountId, { brandingRemoval: false });
    const before = await get(acct.chatbotId, acct.token);
    const res = await patchAll(
      { general: { title: 'New title' }, 'chat-mode': { mode: 'AI_ONLY' }, appearance: { hideWatermark: true } },
      acct.chatbotId,
      acct.token,
    );
    expect(res.status).toBe(403);
    expect(await get(acct.chatbotId, acct.token)).toEqual(before);
  });

  test('a section PATCH with one bad field changes none of its good fields', async () => {
    const id = await newChatbot();
    const before = await get(id);
    const res = await patch('general', { title: 'ok', historyCount: 51 }, id);
    expectRefused(res, ['historyCount']);
    expect(await get(id)).toEqual(before);
  });
});

describe('localization merges group by group', () => {
  test("a PATCH of one group keeps the others; a PATCH of one string keeps its group's other strings", async () => {
    const id = await newChatbot();
    expect(
      (
        await patch(
          'localization',
          { localization: { locale: 'de', chatHome: { home: 'Start', addDetails: 'Details' } } },
          id,
        )
      ).status,
    ).toBe(200);
    expect(
      (await patch('localization', { localization: { chatMessages: { messages: 'Nachrichten' } } }, id)).status,
    ).toBe(200);
    expect((await patch('localization', { localization: { chatHome: { home: 'Anfang' } } }, id)).status).toBe(200);
    expect((await get(id)).settings.localization).toEqual({
      locale: 'de',
      chatHome: { home: 'Anfang', addDetails: 'Details' },
      chatMessages: { messages: 'Nachrichten' },
    });
  });

  test('null clears one group, and null clears the whole localization', async () => {
    const id = await newChatbot();
    await patch('localization', { localization: { learnMore: 'More', chatHome: { home: 'Home' } } }, id);
    await patch('localization', { localization: { chatHome: null } }, id);
    expect((await get(id)).settings.localization).toEqual({ learnMore: 'More', chatHome: null });
    await patch('localization', { localization: null }, id);
    expect((await get(id)).settings.localization).toBeNull();
  });

  test('unknown groups and unknown strings are refused', async () => {
    expectRefused(await patch('localization', { localization: { chatFooter: { x: 'y' } } }), [
      'localization',
      'chatFooter',
    ]);
    expectRefused(await patch('localization', { localization: { chatHome: { nope: 'y' } } }), [
      'localization',
      'chatHome',
      'nope',
    ]);
  });
});

describe('fields sent to the wrong section', () => {
  test.each([
    ['general', { mode: 'AI_ONLY' }, 'mode'],
    ['chat-mode', { topK: 2 }, 'topK'],
    ['appearance', { webhookUrl: 'https://hooks.test' }, 'webhookUrl'],
    ['user-data', { welcomeMessage: 'hi' }, 'welcomeMessage'],
    ['localization', { locale: 'de' }, 'locale'],
    ['webhooks', { title: 'x' }, 'title'],
    ['appearance', { iconSrcId: 'https://evil.test/x.png' }, 'iconSrcId'],
    ['general', { promptId: 'p' }, 'promptId'],
  ])('PATCH /settings/%s with %j is refused', async (section, body, field) => {
    const id = await newChatbot();
    const before = await get(id);
    expectRefused(await patch(section, body, id), [field]);
    expect(await get(id)).toEqual(before);
  });

  test('in the multi-section PATCH a field under the wrong section key is refused too', async () => {
    expectRefused(await patchAll({ general: { mode: 'AI_ONLY' } }), ['general', 'mode']);
    expectRefused(await patchAll({ topK: 2 }), ['topK']);
  });
});
