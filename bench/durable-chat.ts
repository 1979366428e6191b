/**
 * The yardstick of `npm run bench -- fleet`: the least a durable chat server does, on the same
 * PostgreSQL as Parley and with the same durability (the server's default synchronous_commit).
 * A socket sends `message.send` frames; each one is stored with its event in one transaction (the
 * conversation's next number, the message row, the event row) and the stored message is sent back
 * as `message.created` once committed. No auth, no limits, no fan-out: the floor of the work.
 * Run as its own process: PORT, DATABASE_URL (with its search_path), POOL_SIZE.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { WebSocketServer } from 'ws';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE || 10) });
await pool.query(`
  create table if not exists yard_conversations (id text primary key, seq integer not null default 0);
  create table if not exists yard_messages (id text primary key, conversation_id text not null, client_id text not null,
    text text not null, seq integer not null, created_at timestamptz not null default now(), unique (conversation_id, client_id));
  create table if not exists yard_events (conversation_id text not null, seq integer not null, type text not null,
    payload jsonb not null, created_at timestamptz not null default now(), primary key (conversation_id, seq));
`);

async function store(conversationId: string, clientId: string, text: string) {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query<{ seq: number }>(
      `insert into yard_conversations (id, seq) values ($1, 1)
       on conflict (id) do update set seq = yard_conversations.seq + 1 returning seq`,
      [conversationId],
    );
    const seq = rows[0].seq;
    const message = { id: randomUUID(), clientId, text, author: 'visitor', createdAt: new Date().toISOString() };
    await client.query(
      'insert into yard_messages (id, conversation_id, client_id, text, seq) values ($1, $2, $3, $4, $5)',
      [message.id, conversationId, clientId, text, seq],
    );
    await client.query('insert into yard_events (conversation_id, seq, type, payload) values ($1, $2, $3, $4)', [
      conversationId,
      seq,
      'message.created',
      JSON.stringify(message),
    ]);
    await client.query('commit');
    return { seq, message };
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

const wss = new WebSocketServer({ port: Number(process.env.PORT), host: '127.0.0.1', perMessageDeflate: false });
wss.on('connection', (ws) => {
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as { clientId: string; conversationId?: string; text: string };
    const conversationId = frame.conversationId ?? randomUUID();
    store(conversationId, frame.clientId, frame.text).then(
      ({ seq, message }) => ws.send(JSON.stringify({ type: 'message.created', conversationId, seq, message })),
      (err: Error) => ws.send(JSON.stringify({ type: 'error', message: err.message })),
    );
  });
});
wss.on('listening', () => console.log('listening'));
