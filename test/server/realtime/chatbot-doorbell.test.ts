/**
 * The owner's changes to a chatbot reach its open sockets and SSE streams at once, through the
 * realtime hub: in one process, and from one instance to a socket on another over real Redis.
 * The periodic re-read and the heartbeat are set far off here, so only the hub's ring can explain
 * what the sockets do: settings apply to the next frame, and a page no longer allowed (4003), a
 * deleted chatbot (4001) or a rotated identity secret (4001, its signed sessions only) end idle
 * connections without waiting for a frame.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AckFrame, CLOSE, type ConditionFrame } from '../../../shared/protocol.js';
import { signIdentity } from '../../../server/domain/visitors/identity.js';
import { type DelayProxy, startDelayProxy } from '../../helpers/delay-proxy.js';
import { REDIS_URL, redisAvailable } from '../../helpers/redis.js';
import {
  chatbotWithKnowledge,
  type LiveApp,
  newSession,
  readEvents,
  startLiveApp,
  visitor,
} from '../../helpers/widget.js';

const hasRedis = await redisAvailable();
const env = { WS_CHATBOT_REFRESH_MS: '60000', WS_HEARTBEAT_MS: '600000' };

describe.each([{ hub: 'in-process', instances: 1 }, ...(hasRedis ? [{ hub: 'Redis', instances: 2 }] : [])])(
  '$hub hub',
  ({ instances }) => {
    /** `a` takes the owner's changes; `b` holds the visitors (the same app in process). */
    let a: LiveApp;
    let b: LiveApp;
    let dataDir: string;
    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'parley-doorbell-'));
      const appEnv = instances === 2 ? { ...env, REDIS_URL } : env;
      a = await startLiveApp({ dataDir, env: appEnv });
      b = instances === 2 ? await startLiveApp({ dataDir, env: appEnv }) : a;
    });
    afterAll(async () => {
      if (b !== a) await b?.close();
      await a?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    async function stream(token: string, origin?: string) {
      const controller = new AbortController();
      const res = await fetch(`${b.url}/api/widget/sse`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(origin && { origin }) },
        body: JSON.stringify({ type: 'hello', v: 1 }),
        signal: controller.signal,
      });
      const events = readEvents(res.body!);
      await expect.poll(() => events.frames.some((f) => f.type === 'ready')).toBe(true);
      return { events, stop: () => controller.abort() };
    }

    test('a settings change applies to the next frame of an open socket', async () => {
      const chatbotId = await chatbotWithKnowledge(a);
      const c = await visitor(b.url, (await newSession(b, chatbotId)).token);
      c.send({ type: 'message.send', clientId: 'first', text: 'When are refunds paid?' });
      await c.waitFor((f) => f.type === 'answer.done');
      expect(
        (
          await a.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/chat-mode`, a.ownerToken, {
            mode: 'HUMAN_ONLY',
          })
        ).status,
      ).toBe(200);
      c.send({ type: 'message.send', clientId: 'second', text: 'Anyone there?' });
      const { conversationId } = await c.waitFor<AckFrame>((f) => f.type === 'ack' && f.clientId === 'second');
      const started = await c.waitFor<ConditionFrame>(
        (f) => f.type === 'condition' && f.conversationId === conversationId && f.change === 'started',
      );
      expect(started.state.mode).toBe('AGENT');
      c.close();
    });

    test('a page no longer allowed and a deleted chatbot end idle sockets and streams at once', async () => {
      const origin = 'https://www.shop.test';
      const chatbotId = await chatbotWithKnowledge(a);
      const c = await visitor(b.url, (await newSession(b, chatbotId)).token, undefined, origin);
      const s = await stream((await newSession(b, chatbotId)).token, origin);
      expect(
        (
          await a.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/general`, a.ownerToken, {
            allowedDomains: ['shop.test'],
          })
        ).status,
      ).toBe(200);
      expect((await c.waitClosed()).code).toBe(CLOSE.originRefused);
      await expect.poll(() => s.events.closes.map((x) => x.code)).toEqual([CLOSE.originRefused]);
      s.stop();

      const other = await chatbotWithKnowledge(a);
      const session = await newSession(b, other);
      const d = await visitor(b.url, session.token);
      const t = await stream((await newSession(b, other)).token);
      expect((await a.call('DELETE', `/api/v2/chatbots/${other}?confirm=true`, a.ownerToken)).status).toBe(200);
      expect(await d.waitClosed()).toMatchObject({
        code: CLOSE.sessionInvalid,
        reason: expect.stringMatching(/chatbot no longer exists/),
      });
      await expect.poll(() => t.events.closes.map((x) => x.code)).toEqual([CLOSE.sessionInvalid]);
      await expect.poll(() => b.app.realtime.slots.held(`visitor:${session.visitor.id}`)).toBe(0);
      t.stop();
    });

    test("rotating the identity secret ends the signed sessions' open sockets and streams at once, not the others", async () => {
      const chatbotId = await chatbotWithKnowledge(a);
      const secret = (await a.call('POST', `/api/v2/chatbots/${chatbotId}/identity-secret`, a.ownerToken)).body.data
        .identitySecret.secret as string;
      const email = 'signed@example.com';
      const signed = await newSession(b, chatbotId, { identity: { email, signature: signIdentity(secret, email) } });
      const c = await visitor(b.url, signed.token);
      const s = await stream(signed.token);
      const anonymous = await visitor(b.url, (await newSession(b, chatbotId)).token);
      // Sessions are dated to the second: the new secret must be younger than the signed one.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await a.call('POST', `/api/v2/chatbots/${chatbotId}/identity-secret`, a.ownerToken)).status).toBe(201);
      expect(await c.waitClosed()).toMatchObject({
        code: CLOSE.sessionInvalid,
        reason: expect.stringMatching(/identity secret was rotated/),
      });
      await expect.poll(() => s.events.closes.map((x) => x.code)).toEqual([CLOSE.sessionInvalid]);
      s.stop();
      // The anonymous visitor goes on.
      anonymous.send({ type: 'ping' });
      await anonymous.waitFor((f) => f.type === 'pong');
      expect(anonymous.closed).toBeNull();
      anonymous.close();
    });
  },
);

describe.runIf(hasRedis)('Redis late', () => {
  let proxy: DelayProxy;
  let a: LiveApp;
  let b: LiveApp;
  let dataDir: string;
  beforeAll(async () => {
    const target = new URL(REDIS_URL);
    proxy = await startDelayProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const throughProxy = new URL(REDIS_URL);
    throughProxy.host = proxy.address;
    dataDir = mkdtempSync(join(tmpdir(), 'parley-doorbell-late-'));
    a = await startLiveApp({ dataDir, env: { ...env, REDIS_URL: throughProxy.href } });
    b = await startLiveApp({ dataDir, env: { ...env, REDIS_URL } });
  });
  afterAll(async () => {
    await proxy?.close();
    await b?.close();
    await a?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("the owner's change is answered while Redis holds its reply back, and still rings the other instance", async () => {
    const origin = 'https://www.shop.test';
    const chatbotId = await chatbotWithKnowledge(a);
    const c = await visitor(b.url, (await newSession(b, chatbotId)).token, undefined, origin);
    // Redis carries out a's commands at once; its replies to a come long after this test's deadline.
    proxy.delayMs = 60_000;
    expect(
      (
        await a.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/general`, a.ownerToken, {
          allowedDomains: ['shop.test'],
        })
      ).status,
    ).toBe(200);
    expect((await c.waitClosed()).code).toBe(CLOSE.originRefused);
  }, 15_000);
});
