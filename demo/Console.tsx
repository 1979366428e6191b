/**
 * The agent console: conversations listed live through the team stream (/api/v2/stream), and
 * take over, reply, hand back and resolve through the v2 API.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { TeamFrame, WireMessage } from '../shared/protocol.js';
import type { Api } from './api.js';

interface Row {
  threadId: string;
  mode: string;
  status: string;
  escalated: boolean;
  updatedAt: string;
}

export function Console({ client, chatbotId }: { client: Api; chatbotId: string }) {
  const [rows, setRows] = useState<Row[]>([]);
  const [open, setOpen] = useState<string | null>(null);
  const [messages, setMessages] = useState<Array<Pick<WireMessage, 'id' | 'author' | 'text'>>>([]);
  const [reply, setReply] = useState('');
  const [live, setLive] = useState('connecting');
  const [error, setError] = useState('');
  const openRef = useRef<string | null>(null);
  openRef.current = open;
  const listed = useRef(0);

  // Only the latest list read is shown, and a conversation's messages only while it is the one
  // open: a slow answer for another must never show under this one (a reply would go astray).
  const refresh = () => {
    const n = ++listed.current;
    return client.call('GET', `/chatbots/${chatbotId}/conversations?limit=50`).then((d) => n === listed.current && setRows(d.conversations), (e) => setError(e.message));
  };
  const load = (id: string) =>
    client.call('GET', `/chatbots/${chatbotId}/conversations/${id}/messages?limit=500`).then((d) => openRef.current === id && setMessages(d.messages), (e) => setError(e.message));
  const choose = (id: string) => {
    openRef.current = id;
    setOpen(id);
    setMessages([]);
    void load(id);
  };

  useEffect(() => {
    let ws: WebSocket | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let stopped = false;
    // A dropped stream reconnects (backing off to 15 s); what changed meanwhile is read again
    // through the API. A refused token (4001) is said, not retried.
    const connect = () => {
      ws = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/api/v2/stream`, ['parley.v1', `parley.token.${client.token}`]);
      ws.onopen = () => ws!.send(JSON.stringify({ type: 'hello', v: 1 }));
      ws.onclose = (e) => {
        if (stopped) return;
        if (e.code === 4001) {
          setLive('stopped');
          setError(`Live updates refused: ${e.reason || 'the token is not valid for the stream (it needs conversations:read)'}`);
          return;
        }
        setLive('reconnecting');
        retry = setTimeout(connect, Math.min(15_000, 500 * 2 ** failures++));
      };
      ws.onmessage = (e) => {
        const frame = JSON.parse(String(e.data)) as TeamFrame;
        if (frame.type === 'team.ready') {
          setLive('live');
          if (failures) {
            failures = 0;
            void refresh();
            if (openRef.current) void load(openRef.current);
          }
          return;
        }
        if (frame.type === 'condition' || frame.type === 'message.created' || frame.type === 'answer.done') {
          void refresh();
          if ('conversationId' in frame && frame.conversationId === openRef.current) void load(frame.conversationId);
        }
      };
    };
    void refresh();
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      ws?.close();
    };
  }, [chatbotId]);

  const act = async (path: string, body?: unknown, method = 'POST') => {
    if (!open) return;
    setError('');
    try {
      await client.call(method, `/chatbots/${chatbotId}/conversations/${open}${path}`, body);
      await Promise.all([refresh(), load(open)]);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <section class="console">
      <h2>
        Agent console <small>({live})</small>
      </h2>
      {error && <p class="warn" role="alert">{error}</p>}
      <div class="console-grid">
        <ul class="threads">
          {rows.map((r) => (
            <li>
              <button type="button" aria-pressed={r.threadId === open} onClick={() => choose(r.threadId)}>
                {r.threadId.slice(0, 8)} · {r.mode}
                {r.escalated ? ' · escalated' : ''} · {r.status}
              </button>
            </li>
          ))}
          {!rows.length && <li>No conversations yet: chat in the preview.</li>}
        </ul>
        {open && (
          <div class="thread">
            <div class="actions">
              <button type="button" onClick={() => act('/take-over')}>Take over</button>
              <button type="button" onClick={() => act('/switch-to-ai')}>Hand back to AI</button>
              <button type="button" onClick={() => act('', { status: 'RESOLVED' }, 'PATCH')}>Resolve</button>
            </div>
            <ol class="log">
              {messages.map((m) => (
                <li class={`from-${m.author}`}>
                  <b>{m.author}</b> {m.text}
                </li>
              ))}
            </ol>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                if (!reply.trim()) return;
                void act('/replies', { message: reply }).then(() => setReply(''));
              }}
            >
              <input aria-label="Reply" value={reply} onInput={(e) => setReply((e.target as HTMLInputElement).value)} placeholder="Reply as the team" />
              <button type="submit">Send</button>
            </form>
          </div>
        )}
      </div>
    </section>
  );
}
