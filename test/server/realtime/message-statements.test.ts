/**
 * The cost of a visitor's message in statements, on both databases: a visitor sends over the
 * socket, and every statement the drivers send from the frame to its `message.created` (and the
 * account meter's write after the commit) is counted. A cost contract: a statement added to this
 * path (a round trip on PostgreSQL) fails it. Counted, never timed.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AckFrame, MessageCreatedFrame } from '../../../shared/protocol.js';
import { describeOnDialects } from '../../helpers/dialects.js';
import { logStatements, shortSql, type StatementLog } from '../../helpers/statement-count.js';
import { type Client, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

/** One message's statements: the fewest of several (a background poll may land in one window). */
async function statementsOfMessage(t: LiveApp, log: StatementLog, send: (i: number) => Promise<void>) {
  const runs: string[][] = [];
  for (let i = 0; i < 5; i++) {
    log.clear();
    await send(i);
    await t.app.services.conversations.changes.meter.settled();
    runs.push(log.statements.map(shortSql));
  }
  return runs.reduce((a, b) => (b.length < a.length ? b : a));
}

/**
 * The statements of each case, by dialect (bench/README.md, "Statements per visitor message", says
 * why each is there). SQLite's `pragma data_version` is the read-only connection asking whether
 * anything committed since it last read: in process, no round trip.
 */
const EXPECTED = {
  sqlite: { open: 10, next: 9 },
  postgres: { open: 8, next: 7 },
};

describeOnDialects('statements per visitor message on %s', (dialect) => {
  let t: LiveApp;
  let log: StatementLog;
  let c: Client;
  let conversationId: string;

  beforeAll(async () => {
    // Background pollers (jobs, webhooks) quiet for the run.
    t = await startLiveApp({ dialect, env: { QUEUE_POLL_MS: '60000', WEBHOOK_POLL_MS: '60000' } });
    const created = await t.call('POST', '/api/v2/chatbots', t.ownerToken, {
      title: 'Desk',
      settings: { 'chat-mode': { mode: 'HUMAN_ONLY' } },
    });
    const session = await newSession(t, created.body.data.chatbot.id);
    c = await visitor(t.url, session.token);
    log = logStatements();
  });
  afterAll(async () => {
    log?.stop();
    c?.close();
    await t?.close();
  });

  const sendAndWait = async (clientId: string, conversation?: string) => {
    c.send({
      type: 'message.send',
      clientId,
      text: 'Is anyone there?',
      ...(conversation && { conversationId: conversation }),
    });
    const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack' && f.clientId === clientId);
    await c.waitFor<MessageCreatedFrame>((f) => f.type === 'message.created' && f.message.id === ack.messageId);
    return ack;
  };

  test('a message that opens a conversation', async () => {
    const statements = await statementsOfMessage(t, log, async (i) => {
      conversationId = (await sendAndWait(`open-${i}`)).conversationId;
    });
    expect(statements, statements.join('\n')).toHaveLength(EXPECTED[dialect].open);
  });

  test('a message into the visitor conversation', async () => {
    const statements = await statementsOfMessage(t, log, async (i) => {
      await sendAndWait(`next-${i}`, conversationId);
    });
    expect(statements, statements.join('\n')).toHaveLength(EXPECTED[dialect].next);
  });
});
