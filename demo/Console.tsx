/**
 * The agent console: conversations listed live through the team stream (/api/v2/stream), and
 * take over, reply, hand back and resolve through the v2 API. Everything a visitor wrote is
 * rendered as text (Preact escapes strings; nothing here sets HTML), isolated in <bdi> so a name
 * with direction marks cannot reorder the text around it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Thread, ThreadMessage } from '../shared/conversations.js';
import type { TeamFrame } from '../shared/protocol.js';
import type { Api } from './api.js';

type Row = Pick<
  Thread,
  | 'threadId'
  | 'chatUser'
  | 'mode'
  | 'status'
  | 'escalated'
  | 'agentId'
  | 'startedAt'
  | 'lastMessageAt'
  | 'lastMessage'
  | 'messageCount'
  | 'totalMessagesRead'
>;

/** Who the visitor is, as far as they told: name, else e-mail, else "Visitor" and a short id to tell them apart. */
export const visitorLabel = (r: Pick<Row, 'threadId' | 'chatUser'>) =>
  r.chatUser?.name?.trim() || r.chatUser?.email || `Visitor ${r.threadId.slice(0, 6)}`;

const AUTHOR: Record<ThreadMessage['author'], string> = { visitor: '', ai: 'AI: ', agent: 'Team: ', system: '' };

/** The condition an agent acts on, as one badge: the current one (a taken-over conversation may still carry its escalation). */
function conditions(r: Pick<Row, 'mode' | 'status' | 'escalated'>): Array<[string, string]> {
  if (r.status === 'RESOLVED') return [['resolved', 'Resolved']];
  if (r.mode === 'AGENT') return [['taken-over', 'Taken over']];
  if (r.escalated) return [['escalated', 'Escalated']];
  return [];
}

/** Which actions apply to a conversation, for `me` (the state machine of server/domain/conversations/state.ts). */
export function actions(r: Pick<Row, 'mode' | 'status' | 'escalated' | 'agentId'>, me: string | null) {
  const open = r.status === 'OPEN';
  return {
    takeOver: open && (r.mode === 'AI' || r.agentId !== me),
    handBack: open && (r.mode === 'AGENT' || r.escalated),
    resolve: open,
    reply: open,
  };
}

/** What visitors see for a member without a display name (the widget's default text). */
const TEAM = 'Support team';

/** "now", "5 min", a time today, else a date: short enough for a list. */
function when(iso: string, now = Date.now()): string {
  const at = new Date(iso);
  const minutes = Math.round((now - at.getTime()) / 60_000);
  if (minutes < 1) return 'now';
  if (minutes < 60) return `${minutes} min`;
  if (at.toDateString() === new Date(now).toDateString())
    return at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return at.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}

const latestFirst = (a: Row, b: Row) => (b.lastMessageAt ?? b.startedAt).localeCompare(a.lastMessageAt ?? a.startedAt);

export function Console({ client, chatbotId }: { client: Api; chatbotId: string }) {
  const [rows, setRows] = useState<Row[]>([]);
  const [open, setOpen] = useState<string | null>(null);
  const [messages, setMessages] = useState<Array<Pick<ThreadMessage, 'id' | 'author' | 'name' | 'text' | 'agent'>>>([]);
  const [reply, setReply] = useState('');
  const [live, setLive] = useState('connecting');
  const [error, setError] = useState('');
  const openRef = useRef<string | null>(null);
  openRef.current = open;
  // The team's display names by user id (what visitors see; never the e-mail), and who this token is.
  const [me, setMe] = useState<{ id: string; name: string | null } | null>(null);
  const [names, setNames] = useState<Map<string, string | null>>(new Map());
  const [myName, setMyName] = useState('');
  const nameOf = (userId: string | null | undefined) =>
    (userId && (userId === me?.id ? me.name : names.get(userId))) || TEAM;

  // One list read at a time: changes heard meanwhile make one more read after it, not one each
  // (a busy chatbot rings many times a second).
  const reading = useRef<Promise<unknown> | null>(null);
  const stale = useRef(false);
  const refresh = (): Promise<unknown> => {
    if (reading.current) {
      stale.current = true;
      return reading.current;
    }
    const read = client
      .call('GET', `/chatbots/${chatbotId}/conversations?limit=50`)
      .then(
        (d) => setRows([...d.conversations].sort(latestFirst)),
        (e) => setError(e.message),
      )
      .finally(() => {
        reading.current = null;
        if (stale.current) {
          stale.current = false;
          void refresh();
        }
      });
    reading.current = read;
    return read;
  };
  // What the open conversation shows is read: its unread marker goes (a token without
  // conversations:write keeps the marker; reading still works). The list is read after either way.
  // A count already written is not written again (each write is a conversation event).
  const marked = useRef(new Map<string, number>());
  const markRead = (id: string, count: number) => {
    if ((marked.current.get(id) ?? -1) >= count) return refresh();
    marked.current.set(id, count);
    return client
      .call('PATCH', `/chatbots/${chatbotId}/conversations/${id}`, { totalMessagesRead: count })
      .then(refresh, refresh);
  };
  // A conversation's messages are shown only while it is the one open: a slow answer for another
  // must never show under this one (a reply would go astray).
  const load = (id: string) =>
    client.call('GET', `/chatbots/${chatbotId}/conversations/${id}/messages?limit=500`).then(
      (d) => {
        if (openRef.current !== id) return;
        setMessages(d.messages);
        void markRead(id, d.messages.length);
      },
      (e) => setError(e.message),
    );
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
      ws = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/api/v2/stream`, [
        'parley.v1',
        `parley.token.${client.token}`,
      ]);
      ws.onopen = () => ws!.send(JSON.stringify({ type: 'hello', v: 1 }));
      ws.onclose = (e) => {
        if (stopped) return;
        if (e.code === 4001) {
          setLive('stopped');
          setError(
            `Live updates refused: ${e.reason || 'the token is not valid for the stream (it needs conversations:read)'}`,
          );
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
          if ('conversationId' in frame && frame.conversationId === openRef.current) void load(frame.conversationId);
          else void refresh();
        }
      };
    };
    void refresh();
    connect();
    client.call('GET', '/me').then(
      (d) => {
        setMe({ id: d.user.id, name: d.user.name });
        setMyName(d.user.name ?? '');
      },
      () => {},
    );
    // Without members:read the others show as the team; this token's own name still shows.
    client.call('GET', `/chatbots/${chatbotId}/members`).then(
      (d: { members: Array<{ userId: string; name: string | null }> }) =>
        setNames(new Map(d.members.map((m) => [m.userId, m.name]))),
      () => {},
    );
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

  const saveName = async () => {
    setError('');
    try {
      const d = await client.call('PATCH', '/me', { name: myName });
      setMe({ id: d.user.id, name: d.user.name });
      setMyName(d.user.name ?? '');
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const current = rows.find((r) => r.threadId === open);
  const can = current ? actions(current, me?.id ?? null) : null;
  return (
    <section class="console">
      <h2>
        Agent console <small>({live})</small>
      </h2>
      <form
        class="my-name"
        onSubmit={(e) => {
          e.preventDefault();
          void saveName();
        }}
      >
        <label>
          Your name, as visitors see it
          <input
            value={myName}
            maxLength={80}
            placeholder={TEAM}
            onInput={(e) => setMyName((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" disabled={!me || myName.trim() === (me.name ?? '')}>
          Save name
        </button>
      </form>
      {error && (
        <p class="warn" role="alert">
          {error}
        </p>
      )}
      <div class="console-grid">
        <ul class="threads" aria-label="Conversations">
          {rows.map((r) => {
            const unread = r.messageCount > r.totalMessagesRead && r.threadId !== open;
            const last = r.lastMessage;
            return (
              <li key={r.threadId}>
                <button
                  type="button"
                  class={unread ? 'unread' : undefined}
                  data-thread-id={r.threadId}
                  aria-pressed={r.threadId === open}
                  onClick={() => choose(r.threadId)}
                >
                  <span class="row-top">
                    <bdi class="who">{visitorLabel(r)}</bdi>
                    {(r.lastMessageAt ?? r.startedAt) && (
                      <time dateTime={r.lastMessageAt ?? r.startedAt}>{when(r.lastMessageAt ?? r.startedAt)}</time>
                    )}
                  </span>
                  <span class="preview">
                    {last ? (
                      <>
                        {AUTHOR[last.author]}
                        <bdi>{last.text}</bdi>
                      </>
                    ) : (
                      'No messages yet'
                    )}
                  </span>
                  <span class="badges">
                    {unread && <span class="badge unread-badge">{r.messageCount - r.totalMessagesRead} new</span>}
                    {conditions(r).map(([kind, label]) => (
                      <span class={`badge ${kind}`}>{label}</span>
                    ))}
                  </span>
                </button>
              </li>
            );
          })}
          {!rows.length && <li class="empty">No conversations yet: chat in the preview.</li>}
        </ul>
        {open && (
          <div class="thread">
            <div class="thread-head">
              <b>
                <bdi>{current ? visitorLabel(current) : ''}</bdi>
              </b>
              {current?.chatUser?.name && current.chatUser.email && <span class="email">{current.chatUser.email}</span>}
              {current && conditions(current).map(([kind, label]) => <span class={`badge ${kind}`}>{label}</span>)}
              {current?.mode === 'AGENT' && current.status === 'OPEN' && (
                <span class="by">
                  by <bdi>{nameOf(current.agentId)}</bdi>
                </span>
              )}
            </div>
            <div class="actions">
              <button type="button" disabled={!can?.takeOver} onClick={() => act('/take-over')}>
                Take over
              </button>
              <button type="button" disabled={!can?.handBack} onClick={() => act('/switch-to-ai')}>
                Hand back to AI
              </button>
              <button type="button" disabled={!can?.resolve} onClick={() => act('', { status: 'RESOLVED' }, 'PATCH')}>
                Resolve
              </button>
            </div>
            <ol class="log">
              {messages.map((m) => (
                <li key={m.id} class={`from-${m.author}`}>
                  <b>
                    {m.author === 'visitor'
                      ? current
                        ? visitorLabel(current)
                        : 'Visitor'
                      : m.author === 'ai'
                        ? 'AI'
                        : m.author === 'agent'
                          ? nameOf(m.agent?.id)
                          : 'System'}
                  </b>{' '}
                  {m.text}
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
              <input
                aria-label="Reply"
                value={reply}
                disabled={!can?.reply}
                onInput={(e) => setReply((e.target as HTMLInputElement).value)}
                placeholder={can?.reply === false ? 'Resolved: reopen it to reply' : `Reply as ${nameOf(me?.id)}`}
              />
              <button type="submit" disabled={!can?.reply}>
                Send
              </button>
            </form>
          </div>
        )}
      </div>
    </section>
  );
}
