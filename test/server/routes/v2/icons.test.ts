/**
 * Icons: multipart upload checked by content (never by name or claimed type), size limit, the
 * public URL serving the same bytes, the *IconSrcId setting, replacement and the confirm rule.
 */
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ICON_TYPES } from '../../../../shared/settings.js';
import { newId } from '../../../../server/domain/ids.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';

const ICON_MAX_BYTES = 4096;

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await buildTestApp({ env: { ICON_MAX_BYTES: String(ICON_MAX_BYTES) } });
  token = (await t.token()).token;
});
afterAll(() => t.close());

// --- a real PNG, built here -------------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
/** A valid RGBA PNG of one pixel; `padding` adds a private ancillary chunk to grow the file. */
function png(rgba: [number, number, number, number] = [255, 0, 0, 255], padding = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.from([0, ...rgba]); // filter byte + one pixel
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    ...(padding ? [chunk('prVt', Buffer.alloc(padding, 7))] : []),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// --- multipart, by hand -------------------------------------------------------------------

type Part = { name: string; value: string } | { name: string; filename: string; type: string; data: Buffer };
function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----parley${newId()}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if ('filename' in p) {
      chunks.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type}\r\n\r\n`,
        ),
      );
      chunks.push(p.data);
    } else {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}`));
    }
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function upload(
  chatbotId: string,
  data: Buffer,
  opts: { type?: string; filename?: string; mime?: string; tk?: string } = {},
) {
  const parts: Part[] = [];
  if (opts.type !== '') parts.push({ name: 'type', value: opts.type ?? 'icon' });
  parts.push({ name: 'file', filename: opts.filename ?? 'icon.png', type: opts.mime ?? 'image/png', data });
  const { body, contentType } = multipart(parts);
  return t.call('POST', `/api/v2/chatbots/${chatbotId}/icons`, opts.tk ?? token, body, { 'content-type': contentType });
}

async function fetchPublic(url: string) {
  const path = new URL(url).pathname;
  return t.app.inject({ method: 'GET', url: path });
}

const newChatbot = async (tk = token) =>
  (await t.call('POST', '/api/v2/chatbots', tk, { title: `icons ${newId()}` })).body.data.chatbot.id as string;
const settingsOf = async (id: string) =>
  (await t.call('GET', `/api/v2/chatbots/${id}`, token)).body.data.chatbot.settings;
const iconRows = async (chatbotId: string) =>
  t.database.db.selectFrom('icons').select(['id', 'type']).where('chatbot_id', '=', chatbotId).execute();

describe('upload', () => {
  test('a real PNG is stored, served at its public URL with the same bytes, and referenced by iconSrcId', async () => {
    const id = await newChatbot();
    const bytes = png();
    const res = await upload(id, bytes);
    expect(res.status).toBe(201);
    const icon = res.body.data.icon;
    expect(icon).toMatchObject({ type: 'icon', mime: 'image/png', size: bytes.length, setting: 'iconSrcId' });
    expect(icon.url).toMatch(/^http:\/\/parley\.test\/icons\/[A-Za-z0-9_-]+\.png$/);
    expect((await settingsOf(id)).iconSrcId).toBe(icon.url);

    const served = await fetchPublic(icon.url);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(served.rawPayload, bytes)).toBe(0);
    // Public: no token needed, and the file is not wrapped in the envelope.
    expect(served.rawPayload.subarray(0, 4).toString('hex')).toBe('89504e47');
  });

  test("the stored name is generated, never the client's file name", async () => {
    const id = await newChatbot();
    const res = await upload(id, png(), { filename: '../../etc/evil.png' });
    expect(res.status).toBe(201);
    expect(res.body.data.icon.url).not.toContain('evil');
    expect(res.body.data.icon.url).not.toContain('..');
  });

  test('the type is read from the content, not the claimed Content-Type', async () => {
    const id = await newChatbot();
    const res = await upload(id, png(), { filename: 'icon.jpg', mime: 'image/jpeg' });
    expect(res.status).toBe(201);
    expect(res.body.data.icon.mime).toBe('image/png');
    expect(res.body.data.icon.url).toMatch(/\.png$/);
  });

  test.each(Object.entries(ICON_TYPES))('type %s fills %s', async (type, setting) => {
    const id = await newChatbot();
    const res = await upload(id, png(), { type });
    expect(res.status).toBe(201);
    expect((await settingsOf(id))[setting]).toBe(res.body.data.icon.url);
  });

  test('the type may come from the query string', async () => {
    const id = await newChatbot();
    const { body, contentType } = multipart([{ name: 'file', filename: 'a.png', type: 'image/png', data: png() }]);
    const res = await t.call('POST', `/api/v2/chatbots/${id}/icons?type=agent`, token, body, {
      'content-type': contentType,
    });
    expect(res.status).toBe(201);
    expect((await settingsOf(id)).agentIconSrcId).toBe(res.body.data.icon.url);
  });

  test.each([
    ['plain text', Buffer.from('just some text, not an image')],
    ['HTML', Buffer.from('<!doctype html><html><script>alert(1)</script></html>')],
    [
      'SVG',
      Buffer.from(
        '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>',
      ),
    ],
    ['a PDF', Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n')],
    ['HTML followed by a PNG', Buffer.concat([Buffer.from('<html>'), png()])],
  ])('%s named .png is 415 UNSUPPORTED_MEDIA_TYPE and stores nothing', async (_label, data) => {
    const id = await newChatbot();
    const res = await upload(id, data, { filename: 'icon.png', mime: 'image/png' });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    expect(await iconRows(id)).toEqual([]);
    expect((await settingsOf(id)).iconSrcId).toBeNull();
  });

  test('a file over ICON_MAX_BYTES is 413 PAYLOAD_TOO_LARGE and stores nothing', async () => {
    const id = await newChatbot();
    const big = png([0, 0, 0, 255], ICON_MAX_BYTES);
    expect(big.length).toBeGreaterThan(ICON_MAX_BYTES);
    const res = await upload(id, big);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ ok: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(await iconRows(id)).toEqual([]);
    // Just under the limit is fine.
    const fits = png([0, 0, 0, 255], ICON_MAX_BYTES - 200);
    expect(fits.length).toBeLessThanOrEqual(ICON_MAX_BYTES);
    expect((await upload(id, fits)).status).toBe(201);
  });

  test('a missing file or type, an unknown type, or a JSON body is 400 VALIDATION_FAILED', async () => {
    const id = await newChatbot();
    const noFile = multipart([{ name: 'type', value: 'icon' }]);
    const r1 = await t.call('POST', `/api/v2/chatbots/${id}/icons`, token, noFile.body, {
      'content-type': noFile.contentType,
    });
    expect(r1.status).toBe(400);
    expect(r1.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: ['file'] })]));
    const r2 = await upload(id, png(), { type: '' });
    expect(r2.status).toBe(400);
    expect(r2.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: ['type'] })]));
    const r3 = await upload(id, png(), { type: 'banner' });
    expect(r3.status).toBe(400);
    expect(r3.body.error.code).toBe('VALIDATION_FAILED');
    const r4 = await t.call('POST', `/api/v2/chatbots/${id}/icons`, token, { type: 'icon', file: 'x' });
    expect(r4.status).toBe(400);
    expect(await iconRows(id)).toEqual([]);
  });

  test('a second upload replaces the first: the old URL is gone', async () => {
    const id = await newChatbot();
    const first = (await upload(id, png([1, 2, 3, 255]))).body.data.icon;
    const second = (await upload(id, png([4, 5, 6, 255]))).body.data.icon;
    expect(second.url).not.toBe(first.url);
    expect((await fetchPublic(first.url)).statusCode).toBe(404);
    const served = await fetchPublic(second.url);
    expect(served.statusCode).toBe(200);
    expect(Buffer.compare(served.rawPayload, png([4, 5, 6, 255]))).toBe(0);
    expect((await settingsOf(id)).iconSrcId).toBe(second.url);
    expect(await iconRows(id)).toEqual([{ id: second.id, type: 'icon' }]);
  });

  test('an upload of one type leaves the other types alone', async () => {
    const id = await newChatbot();
    const icon = (await upload(id, png(), { type: 'icon' })).body.data.icon;
    await upload(id, png(), { type: 'agent' });
    expect((await fetchPublic(icon.url)).statusCode).toBe(200);
    expect((await settingsOf(id)).iconSrcId).toBe(icon.url);
  });

  test("another account's chatbot is 404 and gets nothing", async () => {
    const { account } = await t.app.services.accounts.create(`${newId()}@x.test`);
    const theirs = await newChatbot((await t.token({}, account.id)).token);
    const res = await upload(theirs, png());
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('CHATBOT_NOT_FOUND');
    expect(await iconRows(theirs)).toEqual([]);
  });
});

describe('public files', () => {
  test('unknown names, wrong extensions and path tricks are 404', async () => {
    const id = await newChatbot();
    const icon = (await upload(id, png())).body.data.icon;
    const path = new URL(icon.url).pathname;
    expect((await t.app.inject({ method: 'GET', url: path.replace('.png', '.jpg') })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: path.replace('.png', '') })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/icons/${newId()}.png` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/icons/..%2F..%2Fetc%2Fpasswd' })).statusCode).toBe(404);
  });
});

describe('delete', () => {
  test('without confirm: 400 CONFIRMATION_REQUIRED and nothing removed', async () => {
    const id = await newChatbot();
    const icon = (await upload(id, png())).body.data.icon;
    const before = await iconRows(id);
    for (const query of ['', '?confirm=false']) {
      const res = await t.call('DELETE', `/api/v2/chatbots/${id}/icons/icon${query}`, token);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('CONFIRMATION_REQUIRED');
    }
    expect(await iconRows(id)).toEqual(before);
    expect((await settingsOf(id)).iconSrcId).toBe(icon.url);
    expect((await fetchPublic(icon.url)).statusCode).toBe(200);
  });

  test('with confirm: the setting becomes null, the file is gone, the other types stay', async () => {
    const id = await newChatbot();
    const icon = (await upload(id, png())).body.data.icon;
    const agent = (await upload(id, png(), { type: 'agent' })).body.data.icon;
    const res = await t.call('DELETE', `/api/v2/chatbots/${id}/icons/icon?confirm=true`, token);
    expect(res.status).toBe(200);
    expect(res.body.data.deletedIcon).toMatchObject({ type: 'icon', setting: 'iconSrcId', ids: [icon.id] });
    const settings = await settingsOf(id);
    expect(settings.iconSrcId).toBeNull();
    expect(settings.agentIconSrcId).toBe(agent.url);
    expect((await fetchPublic(icon.url)).statusCode).toBe(404);
    expect((await fetchPublic(agent.url)).statusCode).toBe(200);
    expect(await iconRows(id)).toEqual([{ id: agent.id, type: 'agent' }]);
    // Nothing left to delete: 404.
    const again = await t.call('DELETE', `/api/v2/chatbots/${id}/icons/icon?confirm=true`, token);
    expect(again.status).toBe(404);
  });

  test('an unknown icon type is 404', async () => {
    const id = await newChatbot();
    const res = await t.call('DELETE', `/api/v2/chatbots/${id}/icons/banner?confirm=true`, token);
    expect(res.status).toBe(404);
  });

  test('deleting the chatbot removes its icons and their public files', async () => {
    const id = await newChatbot();
    const icon = (await upload(id, png())).body.data.icon;
    expect((await t.call('DELETE', `/api/v2/chatbots/${id}?confirm=true`, token)).status).toBe(200);
    expect(await iconRows(id)).toEqual([]);
    expect((await fetchPublic(icon.url)).statusCode).toBe(404);
  });
});
