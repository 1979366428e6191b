/**
 * POST /chatbots/{id}/install-check: a page of a site served here, loaded through the guarded
 * client, with the snippet, without it, with another chatbot's, an iframe of the hosted page, a
 * 404 and a non-HTML answer; an internal address is refused when private fetching is off; scopes
 * and tenants as everywhere.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findSnippet } from '../../../../server/domain/install-check.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { createChatbot, freshAccount } from '../../../helpers/resources.js';
import { serveSite, type TestSite } from '../../../helpers/site.js';

let t: TestApp;
let guarded: TestApp;
let site: TestSite;
let token: string;
let chatbotId: string;

const snippet = (id: string) =>
  `<script src="https://chat.example.com/widget.js" data-chatbot-id="${id}" fetchpriority="high" async></script>`;

beforeAll(async () => {
  site = await serveSite();
  t = await buildTestApp({ env: { ALLOW_PRIVATE_FETCH: '127.0.0.0/8' } });
  guarded = await buildTestApp();
  token = (await t.token()).token;
  chatbotId = await createChatbot(t, token, 'install');
  site.set('/with', `<!doctype html><html><head>${snippet(chatbotId)}</head><body>Shop</body></html>`);
  site.set('/without', '<!doctype html><html><body>Shop</body></html>');
  site.set('/other', `<html><body>${snippet('someone-else')}</body></html>`);
  site.set('/moved', (_req, res) => res.writeHead(302, { location: '/with' }).end());
  site.set(
    '/frame',
    `<html><body><iframe src="https://chat.example.com/chat/${chatbotId}?x=1"></iframe></body></html>`,
  );
  site.set('/data.json', '{"a":1}', 'application/json');
}, 60_000);
afterAll(async () => {
  await t?.close();
  await guarded?.close();
  await site?.close();
});

const check = (url: string, as = t, tok = token, id = chatbotId) =>
  as.call('POST', `/api/v2/chatbots/${id}/install-check`, tok, { url });

describe('install-check', () => {
  test('finds the snippet, follows redirects, and says when it is missing or names another chatbot', async () => {
    const withIt = await check(`${site.url}/with`);
    expect(withIt.status).toBe(200);
    expect(withIt.body.data.check).toEqual({
      url: `${site.url}/with`,
      finalUrl: `${site.url}/with`,
      status: 200,
      found: true,
      otherChatbotIds: [],
      error: null,
    });
    expect((await check(`${site.url}/moved`)).body.data.check).toMatchObject({
      found: true,
      finalUrl: `${site.url}/with`,
    });
    expect((await check(`${site.url}/frame`)).body.data.check.found).toBe(true);
    expect((await check(`${site.url}/without`)).body.data.check).toMatchObject({ found: false, error: null });
    expect((await check(`${site.url}/other`)).body.data.check).toMatchObject({
      found: false,
      otherChatbotIds: ['someone-else'],
    });
  });

  test('a page that cannot be read is reported in words, not as a failed call', async () => {
    expect((await check(`${site.url}/missing`)).body.data.check).toMatchObject({
      found: false,
      status: 404,
      error: { code: 'HTTP_ERROR' },
    });
    expect((await check(`${site.url}/data.json`)).body.data.check.error.code).toBe('NOT_HTML');
    // Without ALLOW_PRIVATE_FETCH the same local site is an internal address: refused, never fetched.
    const gToken = (await guarded.token()).token;
    const gBot = await createChatbot(guarded, gToken, 'guarded');
    const hits = site.hits.get('/with') ?? 0;
    const refused = await check(`${site.url}/with`, guarded, gToken, gBot);
    expect(refused.status).toBe(200);
    expect(refused.body.data.check).toMatchObject({ found: false, status: null, error: { code: 'BLOCKED_ADDRESS' } });
    expect(site.hits.get('/with') ?? 0).toBe(hits);
  });

  test('bad input is a validation error; scopes and tenants hold', async () => {
    const bad = await check('ftp://example.com/');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    const other = await freshAccount(t);
    expect((await check(`${site.url}/with`, t, other.token)).status).toBe(404);
    const noScope = (await t.token({ access: 'custom', scopes: ['leads:read'] })).token;
    expect((await check(`${site.url}/with`, t, noScope)).status).toBe(403);
  });

  test('findSnippet reads attributes in any quoting and order', () => {
    expect(findSnippet(`<SCRIPT async data-chatbot-id='b1' src=/widget.js></SCRIPT>`, 'b1').found).toBe(true);
    expect(findSnippet(`<script src="/widget.js?v=2" data-chatbot-id=b1></script>`, 'b1').found).toBe(true);
    expect(findSnippet(`<script src="/other.js" data-chatbot-id="b1"></script>`, 'b1').found).toBe(false);
    expect(findSnippet(`<p>data-chatbot-id="b1" /widget.js</p>`, 'b1').found).toBe(false);
  });
});
