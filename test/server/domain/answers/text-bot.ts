/**
 * A chatbot built through the real app (POST /chatbots, POST /knowledge/text, the queue drained)
 * and asked through POST /chatbots/{id}/messages: the answers tests' way in.
 */
import { expect } from 'vitest';
import type { DialectName } from '../../../../server/storage/dialects/index.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';

export interface Answer {
  text: string;
  sources: { title: string }[];
  unanswered: boolean;
}

export interface TextBot {
  t: TestApp;
  token: string;
  base: string;
  /** Asks as a visitor would; `idempotencyKey` sends the header a retried send carries. */
  ask(message: string, idempotencyKey?: string): Promise<Answer>;
}

/** A chatbot titled `title` whose knowledge is `[title, text]` pages. */
export async function textBot(
  knowledge: readonly (readonly [string, string])[],
  options: { title: string; settings?: Record<string, unknown>; env?: Record<string, string>; dialect?: DialectName },
): Promise<TextBot> {
  const t = await buildTestApp({
    env: { QUEUE_POLL_MS: '20', ...options.env },
    ...(options.dialect && { dialect: options.dialect }),
  });
  const { token } = await t.token();
  const created = await t.call('POST', '/api/v2/chatbots', token, {
    title: options.title,
    ...(options.settings && { settings: options.settings }),
  });
  expect(created.status).toBe(201);
  const base = `/api/v2/chatbots/${created.body.data.chatbot.id}`;
  for (const [title, text] of knowledge)
    expect((await t.call('POST', `${base}/knowledge/text`, token, { title, text })).status).toBe(202);
  await t.app.services.queue.drain(30_000);
  const ask = async (message: string, idempotencyKey?: string) => {
    const res = await t.call(
      'POST',
      `${base}/messages`,
      token,
      { message },
      idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
    );
    expect(res.status).toBe(201);
    return res.body.data.answer as Answer;
  };
  return { t, token, base, ask };
}
