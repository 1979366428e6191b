/**
 * The e-mail code never reaches the log, even at LOG_LEVEL=trace over a real socket; without
 * SMTP_URL the log names the folder the mails are written to (and still not the code).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { VerifiedFrame } from '../../../shared/protocol.js';
import { codeOf, startSmtpInbox, type SmtpInbox } from '../../helpers/smtp.js';
import { chatbotWithKnowledge, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

/** The code as a number of its own (timestamps and durations hold any six digits as a part). */
const mentions = (text: string, code: string) => new RegExp(`(?<![0-9.])${code}(?![0-9.])`).test(text);

const lines: string[] = [];
const logStream = { write: (line: string) => void lines.push(line) };
let inbox: SmtpInbox;
let t: LiveApp;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  t = await startLiveApp({ env: { SMTP_URL: inbox.url, LOG_LEVEL: 'trace' }, logStream });
});
afterAll(async () => {
  await t?.close();
  await inbox?.close();
});

test('requesting and verifying a code over the socket logs requests but never the code', async () => {
  const chatbotId = await chatbotWithKnowledge(t);
  const c = await visitor(t.url, (await newSession(t, chatbotId)).token);
  c.send({ type: 'otp.request', email: 'logs@example.com' });
  await c.waitFor((f) => f.type === 'otp.sent');
  const code = codeOf(await inbox.next('logs@example.com'));
  c.send({ type: 'otp.verify', email: 'logs@example.com', code: code === '000000' ? '111111' : '000000' });
  await c.waitFor((f) => f.type === 'error');
  c.send({ type: 'otp.verify', email: 'logs@example.com', code });
  await c.waitFor<VerifiedFrame>((f) => f.type === 'verified');
  c.close();
  await t.app.services.queue.drain();
  expect(lines.length).toBeGreaterThan(5);
  expect(mentions(lines.join(''), code)).toBe(false);
});

test("through the SSE fallback's door: two verifications of one code at once, one verified; the code in no response and no log line", async () => {
  const chatbotId = await chatbotWithKnowledge(t);
  const email = 'door@example.com';
  const post = async (token: string, frame: unknown) => {
    const res = await fetch(`${t.url}/api/widget/frames`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(frame),
    });
    return { status: res.status, text: await res.text() };
  };
  const [a, b] = [await newSession(t, chatbotId), await newSession(t, chatbotId)];
  const sent = await post(a.token, { type: 'otp.request', email });
  expect(JSON.parse(sent.text).data.frames).toEqual([{ type: 'otp.sent', email, resendAfter: 60 }]);
  // An unknown address and this one (now known to the chatbot) get the same answer.
  const other = await post(b.token, { type: 'otp.request', email: 'nobody@example.com' });
  expect(JSON.parse(other.text).data.frames).toEqual([
    { type: 'otp.sent', email: 'nobody@example.com', resendAfter: 60 },
  ]);
  const code = codeOf(await inbox.next(email));
  const results = await Promise.all([
    post(a.token, { type: 'otp.verify', email, code }),
    post(b.token, { type: 'otp.verify', email, code }),
  ]);
  const types = results.map((r) => JSON.parse(r.text).data.frames[0]);
  expect(types.map((f: { type: string }) => f.type).sort()).toEqual(['error', 'verified']);
  expect(types.find((f: { type: string }) => f.type === 'error')).toMatchObject({ code: 'CODE_NOT_VALID' });
  for (const r of [sent, other, ...results]) expect(mentions(r.text, code)).toBe(false);
  await t.app.services.queue.drain();
  expect(mentions(lines.join(''), code)).toBe(false);
});

test('without SMTP_URL the log names the mail folder, and the .eml holds the code the log does not', async () => {
  const own: string[] = [];
  const local = await startLiveApp({ env: { LOG_LEVEL: 'info' }, logStream: { write: (l) => void own.push(l) } });
  try {
    const folder = join(local.dataDir, 'mail');
    expect(own.join('')).toContain(folder);
    const chatbotId = await chatbotWithKnowledge(local);
    const c = await visitor(local.url, (await newSession(local, chatbotId)).token);
    c.send({ type: 'otp.request', email: 'files@example.com' });
    await c.waitFor((f) => f.type === 'otp.sent');
    const files = readdirSync(folder).filter((f) => f.endsWith('.eml'));
    expect(files).toHaveLength(1);
    const raw = readFileSync(join(folder, files[0]), 'utf8');
    const code = /\b(\d{6})\b/.exec(
      raw
        .split(/\r?\n\r?\n/)
        .slice(1)
        .join('\n'),
    )![1];
    expect(own.join('')).toContain(files[0]);
    expect(mentions(own.join(''), code)).toBe(false);
    c.close();
  } finally {
    await local.close();
  }
});
