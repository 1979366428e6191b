/**
 * GET /chatbots/{chatbotId}/knowledge/search on SQLite and PostgreSQL (their full-text search
 * differs): the passages the answers would draw on, best first, within the caller's reach.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';
import { attach, type KnowledgeApp } from '../../../helpers/knowledge-http.js';

describeOnDialects('knowledge search on %s', (dialect) => {
  let t: TestApp;
  let k: KnowledgeApp;

  beforeAll(async () => {
    t = await buildTestApp({ dialect, env: { QUEUE_POLL_MS: '20' } });
    k = await attach(t);
    for (const [title, text] of [
      ['Refund Policy', '# Refunds\n\nRefunds are paid to the original card within 14 days of the return.'],
      ['Shipping', '# Delivery\n\nParcels leave the warehouse every Tuesday; delivery takes three days.'],
      ['Sizes', '# Fit\n\nOur shoes run small: order one size up.'],
    ]) {
      const res = await t.call('POST', `${k.base}/knowledge/text`, k.token, { title, text });
      expect(res.status).toBe(202);
    }
    await k.settle();
  });
  afterAll(async () => {
    await t?.close();
  });

  const search = (query: string, token = k.token, base = k.base) =>
    t.call('GET', `${base}/knowledge/search?${query}`, token);

  test('the best passage first, with its document, headings and text; limit caps the list', async () => {
    const res = await search('q=how%20long%20until%20refunds%20are%20paid');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [best] = res.body.data.passages;
    expect(best).toMatchObject({ title: 'Refund Policy', url: null, headingPath: ['Refunds'] });
    expect(best.text).toContain('within 14 days');
    expect(typeof best.documentId).toBe('string');
    const one = await search('q=delivery%20parcels%20refunds%20shoes&limit=1');
    expect(one.body.data.passages).toHaveLength(1);
    expect((await search('q=zyxwvut')).body.data.passages).toEqual([]);
  });

  test('query syntax of the full-text engines is only words here', async () => {
    for (const q of ['"refunds', 'refunds AND (', '* OR NEAR', "'; drop table chunks; --", '%_\\']) {
      const res = await search(`q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
    }
  });

  test('bad input is 400 in the envelope; another account or a missing scope reaches nothing', async () => {
    for (const query of ['', 'q=', `q=${'a'.repeat(1001)}`, 'q=x&limit=0', 'q=x&limit=51', 'q=x&other=1']) {
      const res = await search(query);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
    const other = await t.app.services.accounts.create(`search-${dialect}@else.test`);
    const { token } = await t.token({}, other.account.id);
    const stranger = await search('q=refunds', token);
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.code).toBe('CHATBOT_NOT_FOUND');
    const reader = await t.token({ access: 'custom', scopes: ['chatbots:read'] });
    const refused = await search('q=refunds', reader.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.missingScopes).toEqual(['knowledge:read']);
  });
});
