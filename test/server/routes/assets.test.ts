import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIDGET_DIST } from '../../../server/routes/assets/widget-scripts.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const chunks = () => readdirSync(join(WIDGET_DIST, 'chunks')).filter((f) => f.endsWith('.js'));
const brotli = (path: string) =>
  brotliCompressSync(readFileSync(path), { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

describe('widget files', () => {
  it('serves widget.js as a short-cached script, brotli when accepted, loadable from any origin', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/widget.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const plain = await t.app.inject({ method: 'GET', url: '/widget.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('/api/widget/');
  });

  it('revalidates widget.js with its ETag (304, no body) and lets the page time it', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/widget.js', headers: { 'accept-encoding': 'br' } });
    expect(res.headers['timing-allow-origin']).toBe('*');
    const etag = String(res.headers.etag);
    expect(etag).toMatch(/^".+"$/);
    const again = await t.app.inject({
      method: 'GET',
      url: '/widget.js',
      headers: { 'accept-encoding': 'br', 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    const other = await t.app.inject({ method: 'GET', url: '/widget.js', headers: { 'if-none-match': '"stale"' } });
    expect(other.statusCode).toBe(200);
    expect(other.body).toBe(readFileSync(join(WIDGET_DIST, 'widget.js'), 'utf8'));
  });

  it('serves each hashed chunk with a year-long immutable cache; other names are 404 in the envelope', async () => {
    const [chunk] = chunks();
    const res = await t.app.inject({ method: 'GET', url: `/widget/${chunk}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    for (const url of ['/widget/nope-123.js', '/widget/..%2Fwidget.js', '/widget/app.js.br']) {
      const miss = await t.app.inject({ method: 'GET', url });
      expect(miss.statusCode, url).toBe(404);
      expect(miss.json().ok).toBe(false);
    }
  });

  it('serves the hosted chat page with a strict CSP and the chatbot id escaped', async () => {
    const token = (await t.token()).token;
    const bot = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot.id as string;
    const res = await t.app.inject({ method: 'GET', url: `/chat/${bot}?theme=dark&locale=de` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    expect(res.body).toContain(`nonce="${nonce}"`);
    expect(res.body).toContain(`data-chatbot-id="${bot}" data-mode="page" data-theme="dark" data-locale="de"`);
    const bad = await t.app.inject({ method: 'GET', url: '/chat/%3Cscript%3E' });
    expect(bad.statusCode).toBe(404);
    const badLocale = await t.app.inject({ method: 'GET', url: `/chat/${bot}?locale=%22%3E%3Cscript%3E` });
    expect(badLocale.body).not.toContain('<script>');
    expect(badLocale.body).not.toContain('data-locale');
  });

  it("answers /chat/{an id no chatbot has} with a 404 page in the visitor's language, not a blank chat", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/chat/no_such_bot' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<title>Chat not found</title>');
    expect(res.body).toContain('There is no chat at this address.');
    expect(res.body).not.toContain('widget.js');
    // The CSP's nonce covers the page's only style.
    const nonce = /'nonce-([^']+)'/.exec(String(res.headers['content-security-policy']))![1];
    expect(res.body).toContain(`<style nonce="${nonce}">`);
    const german = await t.app.inject({
      method: 'GET',
      url: '/chat/no_such_bot',
      headers: { 'accept-language': 'fr;q=0.5, de-CH' },
    });
    expect(german.statusCode).toBe(404);
    expect(german.body).toContain('<h1>Chat nicht gefunden</h1>');
    expect(german.body).toContain('lang="de" dir="ltr"');
    const arabic = await t.app.inject({
      method: 'GET',
      url: '/chat/no_such_bot?locale=ar',
      headers: { 'accept-language': 'de' },
    });
    expect(arabic.body).toContain('lang="ar" dir="rtl"');
    expect(arabic.body).toContain('المحادثة غير موجودة');
  });
});

// The budgets of issue 12: they fail CI when the widget grows past them.
describe('widget size budgets (brotli)', () => {
  it('widget.js, the first script, is at most 15 KB', () => {
    expect(brotli(join(WIDGET_DIST, 'widget.js'))).toBeLessThanOrEqual(15 * 1024);
  });

  it('everything an English visitor loads to chat is at most 35 KB', () => {
    const app = chunks().filter((f) => f.startsWith('app-'));
    expect(app).toHaveLength(1);
    const total = brotli(join(WIDGET_DIST, 'widget.js')) + brotli(join(WIDGET_DIST, 'chunks', app[0]));
    expect(total).toBeLessThanOrEqual(35 * 1024);
  });
});
