/**
 * Leads: capture (`captureLead`, validated against the chatbot's `leadFields` setting, itself
 * validated on PATCH), GET /leads (50/100, newest first, from/to, cursors bound to their filter),
 * GET one, DELETE with the confirm rule (data.deletedLead), POST /leads/actions (`delete` needs
 * confirm: true in the body; unknown actions refused), 404s, and the errors every route answers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AppError } from '../../../../server/domain/errors.js';
import { newId } from '../../../../server/domain/ids.js';
import { captureLead, type CaptureLeadInput } from '../../../../server/domain/resources/leads.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { createChatbot, describeRouteErrors, expectError, freshAccount, rowCount } from '../../../helpers/resources.js';

let t: TestApp;
let token: string;
let chatbotId: string;
let leadId: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  chatbotId = await createChatbot(t, token, 'leads');
  leadId = (await capture({ chatbotId, name: 'Ada', email: 'ada@example.com', source: 'widget' })).id;
});
afterAll(() => t.close());

const base = (id: string) => `/api/v2/chatbots/${id}/leads`;
const capture = (input: CaptureLeadInput) => captureLead(t.app.services.store, input);

/** The AppError a capture throws (fails the test when it succeeds). */
async function refused(input: CaptureLeadInput): Promise<AppError> {
  try {
    await capture(input);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('the capture was accepted');
}

const FIELDS = [
  { key: 'company', label: 'Company', type: 'text', required: true },
  { key: 'seats', label: 'Seats', type: 'number', required: false },
  { key: 'plan', label: 'Plan', type: 'select', required: false, options: ['basic', 'pro'] },
  { key: 'work_email', label: 'Work e-mail', type: 'email', required: false },
  { key: 'mobile', label: 'Mobile', type: 'phone', required: false },
];

async function withFields(fields: unknown[] = FIELDS) {
  const id = await createChatbot(t, token);
  const res = await t.call('PATCH', `/api/v2/chatbots/${id}/settings/user-data`, token, { leadFields: fields });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return id;
}

describe('the leadFields setting', () => {
  test('defaults to [] and round-trips through the settings', async () => {
    const id = await createChatbot(t, token);
    expect((await t.call('GET', `/api/v2/chatbots/${id}`, token)).body.data.chatbot.settings.leadFields).toEqual([]);
    await withFields();
    const set = await t.call('PATCH', `/api/v2/chatbots/${id}/settings`, token, {
      'user-data': { leadFields: FIELDS },
    });
    expect(set.body.data.chatbot.settings.leadFields).toEqual(FIELDS);
  });

  test.each([
    ['duplicate keys', [FIELDS[0], { ...FIELDS[1], key: 'company' }], ['leadFields', 1, 'key']],
    [
      'a select without options',
      [{ key: 'k', label: 'K', type: 'select', required: false }],
      ['leadFields', 0, 'options'],
    ],
    [
      'options on a text field',
      [{ key: 'k', label: 'K', type: 'text', required: false, options: ['a'] }],
      ['leadFields', 0, 'options'],
    ],
    ['a key with capitals', [{ key: 'Company', label: 'K', type: 'text', required: false }], ['leadFields', 0, 'key']],
    ['the key __proto__', [{ key: '__proto__', label: 'K', type: 'text', required: false }], ['leadFields', 0, 'key']],
    ['a key too long', [{ key: 'k'.repeat(41), label: 'K', type: 'text', required: false }], ['leadFields', 0, 'key']],
    ['an empty label', [{ key: 'k', label: '', type: 'text', required: false }], ['leadFields', 0, 'label']],
    ['an unknown type', [{ key: 'k', label: 'K', type: 'date', required: false }], ['leadFields', 0, 'type']],
    ['required missing', [{ key: 'k', label: 'K', type: 'text' }], ['leadFields', 0, 'required']],
    [
      'an unknown property',
      [{ key: 'k', label: 'K', type: 'text', required: false, hidden: true }],
      ['leadFields', 0, 'hidden'],
    ],
    [
      '21 fields',
      Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, label: 'K', type: 'text', required: false })),
      ['leadFields'],
    ],
  ])('%s is 400 VALIDATION_FAILED naming the field; the settings are unchanged', async (_label, fields, path) => {
    const id = await createChatbot(t, token);
    const res = await t.call('PATCH', `/api/v2/chatbots/${id}/settings/user-data`, token, { leadFields: fields });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect((await t.call('GET', `/api/v2/chatbots/${id}`, token)).body.data.chatbot.settings.leadFields).toEqual([]);
  });

  test('null is refused (not nullable; [] for none)', async () => {
    const id = await createChatbot(t, token);
    expectError(
      await t.call('PATCH', `/api/v2/chatbots/${id}/settings/user-data`, token, { leadFields: null }),
      400,
      'VALIDATION_FAILED',
    );
  });
});

describe('captureLead', () => {
  test('stores name, e-mail (lower-cased), phone and the defined custom fields; unknown keys are dropped', async () => {
    const id = await withFields();
    const lead = await capture({
      chatbotId: id,
      name: '  Grace  ',
      email: ' Grace@Example.COM ',
      phone: '+47 22 33 44 55',
      customFields: {
        company: ' Navy ',
        seats: '12',
        plan: 'pro',
        work_email: 'G@NAVY.mil',
        mobile: '(555) 123-4567',
        injected: 'dropped',
        constructor: 'x',
      },
      source: 'widget',
    });
    expect(lead).toMatchObject({
      chatbotId: id,
      name: 'Grace',
      email: 'grace@example.com',
      phone: '+47 22 33 44 55',
      customFields: { company: 'Navy', seats: 12, plan: 'pro', work_email: 'g@navy.mil', mobile: '(555) 123-4567' },
      source: 'widget',
    });
    const got = await t.call('GET', `${base(id)}/${lead.id}`, token);
    expect(got.body.data.lead.customFields).toEqual({
      company: 'Navy',
      seats: 12,
      plan: 'pro',
      work_email: 'g@navy.mil',
      mobile: '(555) 123-4567',
    });
    expect(got.body.data.lead.customFields).not.toHaveProperty('injected');
  });

  test('with no lead fields defined every custom value is dropped', async () => {
    const id = await createChatbot(t, token);
    const lead = await capture({ chatbotId: id, email: 'a@b.test', customFields: { anything: 'x' }, source: 'api' });
    expect(lead.customFields).toEqual({});
  });

  test('a required field missing or blank is VALIDATION_FAILED naming it; nothing stored', async () => {
    const id = await withFields();
    for (const customFields of [{}, { company: '   ' }, { company: null }]) {
      const err = await refused({ chatbotId: id, email: 'a@b.test', customFields, source: 'widget' });
      expect(err.code).toBe('VALIDATION_FAILED');
      expect(err.extra.details).toEqual([
        expect.objectContaining({ path: ['customFields', 'company'], message: expect.stringContaining('required') }),
      ]);
    }
    expect(await rowCount(t, 'leads', id)).toBe(0);
  });

  test('every wrong value is reported at once', async () => {
    const id = await withFields();
    const err = await refused({
      chatbotId: id,
      email: 'not-an-email',
      phone: 'call me',
      customFields: { company: 'x'.repeat(1001), seats: 'many', plan: 'enterprise', work_email: 'nope', mobile: 'abc' },
      source: 'widget',
    });
    const paths = (err.extra.details as { path: unknown[] }[]).map((d) => d.path.join('.')).sort();
    expect(paths).toEqual([
      'customFields.company',
      'customFields.mobile',
      'customFields.plan',
      'customFields.seats',
      'customFields.work_email',
      'email',
      'phone',
    ]);
  });

  test('a lead with nothing in it is refused', async () => {
    const err = await refused({ chatbotId, name: ' ', customFields: { x: 1 }, source: 'widget' });
    expect(err.code).toBe('VALIDATION_FAILED');
  });

  test('an unknown chatbot is CHATBOT_NOT_FOUND', async () => {
    expect((await refused({ chatbotId: newId(), email: 'a@b.test', source: 'widget' })).code).toBe('CHATBOT_NOT_FOUND');
  });

  test('the conversation link shows as threadId; it runs inside a caller transaction', async () => {
    const id = await createChatbot(t, token);
    const at = new Date().toISOString();
    const conversationId = newId();
    await t.database.db
      .insertInto('conversations')
      .values({
        id: conversationId,
        chatbot_id: id,
        chat_user_id: null,
        status: 'OPEN',
        mode: 'AI',
        agent_id: null,
        webhook_url: null,
        webhook_token: null,
        last_message_at: null,
        created_at: at,
        updated_at: at,
        ended_at: null,
      })
      .execute();
    const lead = await t.app.services.store.transaction((s) =>
      captureLead(s, { chatbotId: id, conversationId, email: 'c@d.test', source: 'escalation' }),
    );
    const got = (await t.call('GET', `${base(id)}/${lead.id}`, token)).body.data.lead;
    expect(got).toMatchObject({ threadId: conversationId, chatUserId: null, source: 'escalation' });
  });
});

describe('GET /leads', () => {
  test('pages newest first (default 50); the page shape carries pagination', async () => {
    const id = await createChatbot(t, token);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.unshift((await capture({ chatbotId: id, email: `l${i}@x.test`, source: 'widget' })).id);
    const all = await t.call('GET', base(id), token);
    expect(all.status).toBe(200);
    expect(all.body.data.pagination).toEqual({ limit: 50, hasNextPage: false, nextCursor: null });
    const created = all.body.data.leads.map((l: { createdAt: string }) => l.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    expect(all.body.data.leads.map((l: { id: string }) => l.id).sort()).toEqual([...ids].sort());

    const p1 = await t.call('GET', `${base(id)}?limit=2`, token);
    expect(p1.body.data.leads).toHaveLength(2);
    expect(p1.body.meta.nextCursor).toBe(p1.body.data.pagination.nextCursor);
    const p2 = await t.call('GET', `${base(id)}?limit=2&cursor=${encodeURIComponent(p1.body.meta.nextCursor)}`, token);
    const p3 = await t.call('GET', `${base(id)}?limit=2&cursor=${encodeURIComponent(p2.body.meta.nextCursor)}`, token);
    expect(p3.body.data.pagination.hasNextPage).toBe(false);
    expect(
      [...p1.body.data.leads, ...p2.body.data.leads, ...p3.body.data.leads].map((l: { id: string }) => l.id),
    ).toEqual(all.body.data.leads.map((l: { id: string }) => l.id));
  });

  test('from (inclusive) and to (exclusive) bound the capture time; offsets are understood', async () => {
    const id = await createChatbot(t, token);
    const times = ['2025-01-01T10:00:00.000Z', '2025-01-02T10:00:00.000Z', '2025-01-03T10:00:00.000Z'];
    const ids: string[] = [];
    for (const at of times) {
      const lid = newId();
      ids.push(lid);
      await t.app.services.store.resources.leads.insert({
        id: lid,
        chatbotId: id,
        conversationId: null,
        chatUserId: null,
        name: null,
        email: 'x@y.test',
        phone: null,
        customFields: {},
        source: 'api',
        createdAt: at,
      });
    }
    const get = async (q: string) =>
      (await t.call('GET', `${base(id)}?${q}`, token)).body.data.leads.map((l: { id: string }) => l.id);
    expect(await get(`from=${encodeURIComponent('2025-01-02T10:00:00.000Z')}`)).toEqual([ids[2], ids[1]]);
    expect(await get(`to=${encodeURIComponent('2025-01-02T10:00:00.000Z')}`)).toEqual([ids[0]]);
    expect(
      await get(
        `from=${encodeURIComponent('2025-01-02T12:00:00+02:00')}&to=${encodeURIComponent('2025-01-03T00:00:00Z')}`,
      ),
    ).toEqual([ids[1]]);
  });

  test('a cursor works only with the filter it was issued for (400 INVALID_CURSOR)', async () => {
    const id = await createChatbot(t, token);
    for (let i = 0; i < 3; i++) await capture({ chatbotId: id, email: `c${i}@x.test`, source: 'widget' });
    const p1 = await t.call('GET', `${base(id)}?limit=1`, token);
    const cursor = encodeURIComponent(p1.body.meta.nextCursor);
    expect((await t.call('GET', `${base(id)}?limit=1&cursor=${cursor}`, token)).status).toBe(200);
    expectError(
      await t.call('GET', `${base(id)}?limit=1&cursor=${cursor}&from=2020-01-01T00:00:00Z`, token),
      400,
      'INVALID_CURSOR',
    );
    expectError(await t.call('GET', `${base(id)}?cursor=garbage`, token), 400, 'INVALID_CURSOR');
  });

  test.each([['limit=0'], ['limit=101'], ['from=yesterday'], ['to=2025-13-01T00:00:00Z'], ['status=new']])(
    '%s is 400 VALIDATION_FAILED',
    async (q) => {
      expectError(await t.call('GET', `${base(chatbotId)}?${q}`, token), 400, 'VALIDATION_FAILED');
    },
  );

  test("only the chatbot's own leads are listed; GET one of another chatbot is 404 NOT_FOUND", async () => {
    const other = await createChatbot(t, token);
    expect((await t.call('GET', base(other), token)).body.data.leads).toEqual([]);
    expectError(await t.call('GET', `${base(other)}/${leadId}`, token), 404, 'NOT_FOUND');
    expectError(await t.call('GET', `${base(chatbotId)}/${newId()}`, token), 404, 'NOT_FOUND');
    const got = await t.call('GET', `${base(chatbotId)}/${leadId}`, token);
    expect(got.body.data.lead).toMatchObject({
      id: leadId,
      chatbotId,
      name: 'Ada',
      email: 'ada@example.com',
      phone: null,
      threadId: null,
      customFields: {},
    });
  });
});

describe('DELETE /leads/{leadId}', () => {
  test.each(['', '?confirm=false'])('DELETE%s is 400 CONFIRMATION_REQUIRED and deletes nothing', async (q) => {
    const before = await rowCount(t, 'leads');
    expectError(await t.call('DELETE', `${base(chatbotId)}/${leadId}${q}`, token), 400, 'CONFIRMATION_REQUIRED');
    expect(await rowCount(t, 'leads')).toBe(before);
  });

  test('?confirm=true returns data.deletedLead, the removed lead', async () => {
    const lead = await capture({ chatbotId, name: 'Bye', email: 'bye@x.test', source: 'widget' });
    const view = (await t.call('GET', `${base(chatbotId)}/${lead.id}`, token)).body.data.lead;
    const res = await t.call('DELETE', `${base(chatbotId)}/${lead.id}?confirm=true`, token);
    expect(res.status).toBe(200);
    expect(res.body.data.deletedLead).toEqual(view);
    expectError(await t.call('GET', `${base(chatbotId)}/${lead.id}`, token), 404, 'NOT_FOUND');
  });

  test('a lead of another chatbot, or an unknown id, is 404 NOT_FOUND and nothing is deleted', async () => {
    const other = await createChatbot(t, token);
    const before = await rowCount(t, 'leads');
    expectError(await t.call('DELETE', `${base(other)}/${leadId}?confirm=true`, token), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', `${base(chatbotId)}/${newId()}?confirm=true`, token), 404, 'NOT_FOUND');
    expect(await rowCount(t, 'leads')).toBe(before);
  });
});

describe('POST /leads/actions', () => {
  const act = (id: string, body: unknown) => t.call('POST', `${base(id)}/actions`, token, body);

  test.each([
    ['confirm missing', {}],
    ['confirm false', { confirm: false }],
  ])('delete with %s is 400 CONFIRMATION_REQUIRED and removes nothing', async (_l, extra) => {
    const before = await rowCount(t, 'leads');
    const res = await act(chatbotId, { action: 'delete', leadIds: [leadId], ...extra });
    expectError(res, 400, 'CONFIRMATION_REQUIRED');
    expect(res.body.error.hint).toContain('"confirm": true');
    expect(await rowCount(t, 'leads')).toBe(before);
  });

  test('?confirm=true in the query does not replace confirm in the body', async () => {
    const before = await rowCount(t, 'leads');
    const res = await t.call('POST', `${base(chatbotId)}/actions?confirm=true`, token, {
      action: 'delete',
      leadIds: [leadId],
    });
    expectError(res, 400, 'CONFIRMATION_REQUIRED');
    expect(await rowCount(t, 'leads')).toBe(before);
  });

  test.each([
    ['an unknown action', { action: 'archive', leadIds: ['x'], confirm: true }, ['action']],
    ['no action', { leadIds: ['x'], confirm: true }, ['action']],
    ['no ids', { action: 'delete', leadIds: [], confirm: true }, ['leadIds']],
    ['ids not a list', { action: 'delete', leadIds: 'x', confirm: true }, ['leadIds']],
    [
      'too many ids',
      { action: 'delete', leadIds: Array.from({ length: 501 }, (_, i) => `id${i}`), confirm: true },
      ['leadIds'],
    ],
    ['confirm a string', { action: 'delete', leadIds: ['x'], confirm: 'true' }, ['confirm']],
    ['an unknown field', { action: 'delete', leadIds: ['x'], confirm: true, all: true }, ['all']],
  ])('%s is 400 VALIDATION_FAILED naming the field; nothing removed', async (_l, body, path) => {
    const before = await rowCount(t, 'leads');
    const res = await act(chatbotId, body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await rowCount(t, 'leads')).toBe(before);
  });

  test("delete with confirm removes the chatbot's listed leads; other chatbots' and unknown ids come back in notFound", async () => {
    const id = await createChatbot(t, token);
    const other = await createChatbot(t, token);
    const a = await capture({ chatbotId: id, email: 'a@x.test', source: 'widget' });
    const b = await capture({ chatbotId: id, email: 'b@x.test', source: 'widget' });
    const keep = await capture({ chatbotId: id, email: 'keep@x.test', source: 'widget' });
    const foreign = await capture({ chatbotId: other, email: 'f@x.test', source: 'widget' });
    const unknown = newId();
    const res = await act(id, { action: 'delete', leadIds: [a.id, b.id, b.id, foreign.id, unknown], confirm: true });
    expect(res.status).toBe(200);
    expect(res.body.data.action).toBe('delete');
    expect(res.body.data.deletedLeads.map((l: { id: string }) => l.id).sort()).toEqual([a.id, b.id].sort());
    expect(res.body.data.notFound).toEqual([foreign.id, unknown]);
    expect(await rowCount(t, 'leads', id)).toBe(1);
    expect(await rowCount(t, 'leads', other)).toBe(1);
    expect((await t.call('GET', `${base(id)}/${keep.id}`, token)).status).toBe(200);
  });
});

describe('reach', () => {
  test("another account's token gets 404 CHATBOT_NOT_FOUND and deletes nothing", async () => {
    const other = await freshAccount(t);
    const before = await rowCount(t, 'leads');
    expectError(
      await t.call('POST', `${base(chatbotId)}/actions`, other.token, {
        action: 'delete',
        leadIds: [leadId],
        confirm: true,
      }),
      404,
      'CHATBOT_NOT_FOUND',
    );
    expectError(
      await t.call('DELETE', `${base(chatbotId)}/${leadId}?confirm=true`, other.token),
      404,
      'CHATBOT_NOT_FOUND',
    );
    expect(await rowCount(t, 'leads')).toBe(before);
  });
});

describeRouteErrors('leads', () => ({
  t,
  token,
  chatbotId,
  routes: [
    { method: 'GET', path: (id) => `/chatbots/${id}/leads`, scopes: ['leads:read'] },
    { method: 'GET', path: (id) => `/chatbots/${id}/leads/${leadId}`, scopes: ['leads:read'] },
    { method: 'DELETE', path: (id) => `/chatbots/${id}/leads/${leadId}?confirm=true`, scopes: ['leads:delete'] },
    {
      method: 'POST',
      path: (id) => `/chatbots/${id}/leads/actions`,
      scopes: ['leads:delete'],
      body: { action: 'delete', leadIds: [leadId], confirm: true },
    },
  ],
}));
