/**
 * One conversation: its messages (the AI's and the team's as sanitised Markdown, the visitor's as
 * text), the actions its state allows, who is typing, the reply box and the visitor's details.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ThreadMessage } from '../../../shared/conversations.js';
import type { TeamFrame, TeamMember } from '../../../shared/protocol.js';
import { Markdown } from '../../../widget/ui/markdown.js';
import { listAll, patch, post } from '../../api.js';
import { fill } from '../../i18n/index.js';
import { can } from '../../shell/state.js';
import { actionsFor, stateOf, visitorName, type Conversation } from './conversation.js';
import { errorText, typingIn, When } from './bits.js';
import type { TeamStream } from './stream.js';
import { useInboxStrings } from './strings.js';
import { VisitorDetails } from './VisitorDetails.js';

type Message = Pick<ThreadMessage, 'id' | 'author' | 'name' | 'text' | 'agent' | 'createdAt'>;

interface Props {
  chatbotId: string;
  conversation: Conversation;
  me: string | null;
  /** The display name of the member who took it over, when known. */
  agentName: string | null;
  frame: TeamFrame | null;
  stream: TeamStream;
  onChanged: () => Promise<void>;
  onBack: () => void;
}

/** How long a typing signal lasts without another one. */
const TYPING_MS = 5000;

export function ConversationView({
  chatbotId,
  conversation: c,
  me,
  agentName: takenBy,
  frame,
  stream,
  onChanged,
  onBack,
}: Props) {
  const t = useInboxStrings();
  const base = `/chatbots/${chatbotId}/conversations/${c.threadId}`;
  const [messages, setMessages] = useState<Message[] | null>(null);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [typing, setTyping] = useState<{ who: 'visitor' | 'ai' | 'agent'; name?: string } | null>(null);
  // Who took it over, by the name visitors see: the stream's condition frames carry it.
  const [agent, setAgent] = useState<TeamMember | null>(null);
  const replyRef = useRef<HTMLTextAreaElement>(null);
  const logRef = useRef<HTMLOListElement>(null);
  const writable = can('conversations:write');
  const who = visitorName(c);

  // Each live change reads the messages again; only the latest read is shown (an earlier one may answer last).
  const reads = useRef(0);
  const load = async () => {
    const n = ++reads.current;
    try {
      // Every page, so a long conversation is read to its end (its newest messages are what matter).
      const all = await listAll<Message>(`${base}/messages`, 'messages', 5000);
      if (n !== reads.current) return;
      setMessages(all);
      // What the open conversation shows is read, for the whole team.
      if (writable && c.totalMessagesRead < all.length)
        await patch(base, { totalMessagesRead: all.length }).then(onChanged, () => undefined);
    } catch (err) {
      setError(errorText(err));
    }
  };
  useEffect(() => {
    void load();
  }, [base]);
  useEffect(() => {
    logRef.current?.lastElementChild?.scrollIntoView({ block: 'end' });
  }, [messages]);

  // Live: a new message reads the conversation again; typing shows for a few seconds.
  useEffect(() => {
    if (!frame) return;
    if (frame.type === 'condition') setAgent(frame.state.agent);
    if (frame.type === 'message.created' || frame.type === 'answer.done' || frame.type === 'condition') {
      setTyping(null);
      void load();
      return;
    }
    let next: typeof typing = null;
    if (frame.type === 'visitor.typing' && frame.typing) next = { who: 'visitor' };
    else if (frame.type === 'answer.delta') next = { who: 'ai' };
    else if (frame.type === 'typing' && frame.typing)
      next = frame.who === 'ai' ? { who: 'ai' } : { who: 'agent', name: frame.agent?.name ?? undefined };
    else if (frame.type !== 'typing' && frame.type !== 'visitor.typing') return;
    setTyping(next);
    if (!next) return;
    const timer = setTimeout(() => setTyping(null), TYPING_MS);
    return () => clearTimeout(timer);
  }, [frame]);

  // Opening it on the stream sends its current condition (with the agent's name), then its changes.
  useEffect(() => {
    if (stream.live === 'live') stream.send({ type: 'conversation.open', conversationId: c.threadId, after: c.seq });
  }, [c.threadId, stream.live]);

  // Our own typing, to the visitor and the rest of the team: once when it starts, once when it stops.
  const typingSent = useRef<ReturnType<typeof setTimeout> | null>(null);
  const sendTyping = (on: boolean) => {
    if (on && !typingSent.current) stream.send({ type: 'typing', conversationId: c.threadId, typing: true });
    if (typingSent.current) clearTimeout(typingSent.current);
    typingSent.current = on ? setTimeout(() => sendTyping(false), 3000) : null;
    if (!on) stream.send({ type: 'typing', conversationId: c.threadId, typing: false });
  };
  useEffect(() => () => void (typingSent.current && clearTimeout(typingSent.current)), []);

  // r: write a reply (the inbox's keyboard shortcuts; j/k are the list's).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'r' || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      if (typingIn(e.target)) return;
      if (!replyRef.current) return;
      e.preventDefault();
      replyRef.current.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const act = async (run: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await run();
      await Promise.all([onChanged(), load()]);
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  const send = async () => {
    const message = text.trim();
    if (!message || busy) return;
    if (await act(() => post(`${base}/replies`, { message }))) {
      setText('');
      sendTyping(false);
    }
  };

  const state = stateOf(c);
  const can2 = actionsFor(c, me);
  const agentName = (m: Message) => m.agent?.name || m.name || (m.agent?.id === me ? t.you : t.teamMember);
  const author = (m: Message) =>
    m.author === 'visitor' ? who : m.author === 'ai' ? t.aiName : m.author === 'agent' ? agentName(m) : '';
  const note =
    state === 'resolved'
      ? t.closedNote
      : state === 'escalated'
        ? t.waitingNote
        : state === 'takenOver'
          ? c.agentId === me
            ? t.takenOverByYou
            : fill(t.takenOverBy, { name: agent?.name ?? takenBy ?? t.teamMember })
          : t.aiNote;
  const typingText =
    typing?.who === 'visitor'
      ? fill(t.visitorTyping, { name: who })
      : typing?.who === 'ai'
        ? t.aiTyping
        : typing
          ? fill(t.memberTyping, { name: typing.name ?? t.teamMember })
          : '';

  return (
    <div class="inbox-conversation">
      <section class="inbox-thread" aria-labelledby="inbox-thread-title">
        <button type="button" class="inbox-back" onClick={onBack}>
          {t.back}
        </button>
        <header class="inbox-thread-head">
          <h2 id="inbox-thread-title">
            <bdi>{who}</bdi>
          </h2>
          <span class={`inbox-state ${state}`}>
            {{ escalated: t.escalated, takenOver: t.takenOver, ai: t.conditionAi, resolved: t.resolved }[state]}
          </span>
        </header>
        <p class="muted small inbox-note">{note}</p>
        {writable && (
          <div class="actions inbox-actions">
            {can2.takeOver && (
              <button
                type="button"
                class="primary"
                disabled={busy}
                onClick={() => act(() => post(`${base}/take-over`))}
              >
                {t.takeOver}
              </button>
            )}
            {can2.handBack && (
              <button type="button" disabled={busy} onClick={() => act(() => post(`${base}/switch-to-ai`))}>
                {t.handBack}
              </button>
            )}
            {can2.resolve && (
              <button type="button" disabled={busy} onClick={() => act(() => patch(base, { status: 'RESOLVED' }))}>
                {t.resolve}
              </button>
            )}
            {can2.reopen && (
              <button type="button" disabled={busy} onClick={() => act(() => patch(base, { status: 'OPEN' }))}>
                {t.reopen}
              </button>
            )}
          </div>
        )}
        {!writable && <p class="muted small">{t.readOnly}</p>}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <ol class="inbox-log" ref={logRef} aria-label={t.conversations}>
          {messages?.map((m) => (
            <li key={m.id} class={`inbox-msg ${m.author}`}>
              {m.author !== 'system' && (
                <span class="inbox-msg-by small">
                  <bdi>{author(m)}</bdi> · <When iso={m.createdAt} />
                </span>
              )}
              {m.author === 'visitor' || m.author === 'system' ? (
                <p class="inbox-msg-text" dir="auto">
                  {m.text}
                </p>
              ) : (
                <div dir="auto">
                  <Markdown text={m.text} />
                </div>
              )}
            </li>
          ))}
        </ol>
        <p class="inbox-typing muted small" aria-live="polite">
          {typingText}
        </p>
        {writable && can2.reply && (
          <form
            class="inbox-reply"
            onSubmit={(e) => {
              e.preventDefault();
              void send();
            }}
          >
            <label class="field">
              <span>{t.reply}</span>
              <textarea
                ref={replyRef}
                rows={3}
                maxLength={8000}
                value={text}
                aria-describedby="inbox-reply-hint"
                onInput={(e) => {
                  setText((e.target as HTMLTextAreaElement).value);
                  sendTyping(true);
                }}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                    e.preventDefault();
                    void send();
                  } else if (e.key === 'Escape') (e.target as HTMLElement).blur();
                }}
              />
            </label>
            <p id="inbox-reply-hint" class="muted small">
              {t.replyHint}
            </p>
            <div class="actions">
              <button type="submit" class="primary" disabled={busy || !text.trim()}>
                {t.send}
              </button>
            </div>
          </form>
        )}
      </section>
      <VisitorDetails c={c} />
    </div>
  );
}
