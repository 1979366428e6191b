/**
 * The inbox: the team's conversations by state, live over the team stream. The list reads the
 * open conversations (and the resolved ones when that tab is chosen) and filters and searches
 * what it read; the tab title counts the visitors waiting for a person.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { TeamFrame } from '../../../shared/protocol.js';
import { get } from '../../api.js';
import { errorText, typingIn, When } from './bits.js';
import { fill, formatNumber } from '../../i18n/index.js';
import type { PageProps } from '../../registry.js';
import { can, me } from '../../shell/state.js';
import { ConversationView } from './ConversationView.js';
import {
  latestFirst,
  matches,
  STATES,
  stateOf,
  unreadOf,
  visitorName,
  type Conversation,
  type State,
} from './conversation.js';
import { MyName } from './MyName.js';
import { canNotify, escalationBody, Notifications, notifyEscalation } from './notifications.js';
import { useTeamStream } from './stream.js';
import { useInboxStrings } from './strings.js';
import './inbox.css';

interface ListPage {
  conversations: Conversation[];
  pagination: { nextCursor: string | null };
}

/** Open conversations read per refresh, at most (4 pages of 100). */
const MAX_PAGES = 4;

export default function InboxPage({ chatbotId }: PageProps) {
  const t = useInboxStrings();
  const base = `/chatbots/${chatbotId}/conversations`;
  const [state, setState] = useState<State>('escalated');
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState<Conversation[] | null>(null);
  const [resolved, setResolved] = useState<Conversation[] | null>(null);
  // The open conversation when neither list holds it (resolved while another tab is shown).
  const [single, setSingle] = useState<Conversation | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // New escalations said to screen readers (the list and the title change silently).
  const [announced, setAnnounced] = useState('');
  // Frames for the selected conversation, handed to its view (typing, new messages).
  const [lastFrame, setLastFrame] = useState<TeamFrame | null>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const waitingBefore = useRef<Set<string> | null>(null);

  // One read at a time; changes heard meanwhile make one more read after it (a busy chatbot rings often).
  const reading = useRef<Promise<void> | null>(null);
  const listed = useRef(new Set<string>());
  const stale = useRef(false);
  const readAll = async (status: 'OPEN' | 'RESOLVED') => {
    const all: Conversation[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < (status === 'OPEN' ? MAX_PAGES : 1); i++) {
      const page: ListPage = await get<ListPage>(base, { query: { status, limit: 100, cursor } });
      all.push(...page.conversations);
      cursor = page.pagination.nextCursor;
      if (!cursor) break;
    }
    return all.sort(latestFirst);
  };
  const refresh = (): Promise<void> => {
    if (reading.current) {
      stale.current = true;
      return reading.current;
    }
    const read = (async () => {
      try {
        const [openList, resolvedList] = await Promise.all([
          readAll('OPEN'),
          stateRef.current === 'resolved' ? readAll('RESOLVED') : Promise.resolve(null),
        ]);
        const id = selectedRef.current;
        const listed = (l: Conversation[] | null) => l?.some((c) => c.threadId === id);
        const alone =
          id && !listed(openList) && !listed(resolvedList ?? resolvedRef.current)
            ? (await get<{ conversation: Conversation }>(`${base}/${id}`)).conversation
            : null;
        listed.current = new Set([...openList, ...(resolvedList ?? resolvedRef.current ?? [])].map((c) => c.threadId));
        setOpen(openList);
        if (resolvedList) setResolved(resolvedList);
        setSingle(alone);
        setError(null);
        announceEscalations(openList);
      } catch (err) {
        setError(fill(t.loadFailed, { message: errorText(err) }));
      } finally {
        reading.current = null;
        if (stale.current) {
          stale.current = false;
          void refresh();
        }
      }
    })();
    reading.current = read;
    return read;
  };
  const stateRef = useRef(state);
  stateRef.current = state;
  const resolvedRef = useRef(resolved);
  resolvedRef.current = resolved;

  // A visitor newly waiting for a person (not on the first read): a browser notification when allowed.
  const announceEscalations = (list: Conversation[]) => {
    const waiting = list.filter((c) => stateOf(c) === 'escalated');
    const before = waitingBefore.current;
    waitingBefore.current = new Set(waiting.map((c) => c.threadId));
    if (!before) return;
    const fresh = waiting.filter((c) => !before.has(c.threadId));
    for (const c of fresh) {
      const title = fill(t.newEscalation, { name: visitorName(c) });
      // Read only when it would show; a failed read still notifies, without the words.
      if (canNotify())
        void escalationBody(base, c).then(
          (body) => notifyEscalation(title, c.threadId, body),
          () => notifyEscalation(title, c.threadId),
        );
    }
    if (fresh.length) setAnnounced(fresh.map((c) => fill(t.newEscalation, { name: visitorName(c) })).join('. '));
  };

  const stream = useTeamStream(
    (frame) => {
      if (!('conversationId' in frame)) return;
      if (frame.conversationId === selectedRef.current) setLastFrame(frame);
      // The stream carries every chatbot the member reaches: messages of a conversation this list does
      // not hold are another chatbot's (a new one of this chatbot starts with a condition frame).
      const known = listed.current.has(frame.conversationId);
      if (frame.type === 'condition' || (known && (frame.type === 'message.created' || frame.type === 'answer.done')))
        void refresh();
    },
    () => void refresh(),
  );
  const selectedRef = useRef(selected);
  selectedRef.current = selected;

  useEffect(() => {
    void refresh();
  }, [base]);
  // The team's display names (who took a conversation over); without members:read, "a team member".
  const [names, setNames] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    if (!can('members:read')) return;
    get<{ members: Array<{ userId: string; name: string | null }> }>(`/chatbots/${chatbotId}/members`).then(
      (d) => setNames(new Map(d.members.flatMap((m) => (m.name ? [[m.userId, m.name] as [string, string]] : [])))),
      () => undefined,
    );
  }, [chatbotId]);
  useEffect(() => {
    if (state === 'resolved') void refresh();
  }, [state]);

  // The server's search (every message, every visitor), beside the list's own (made-up names too).
  const [found, setFound] = useState<Conversation[] | null>(null);
  useEffect(() => {
    const q = query.trim();
    setFound(null);
    if (!q) return;
    const timer = setTimeout(() => {
      const status = state === 'resolved' ? 'RESOLVED' : 'OPEN';
      get<ListPage>(base, { query: { q, status, limit: 100 } }).then(
        (page) => setFound(page.conversations),
        (err) => setError(fill(t.loadFailed, { message: errorText(err) })),
      );
    }, 250);
    return () => clearTimeout(timer);
  }, [query, state, base]);

  const all = useMemo(
    () => [...(open ?? []), ...(resolved ?? []), ...(single ? [single] : [])],
    [open, resolved, single],
  );
  const counts = useMemo(() => {
    const n: Record<State, number> = { escalated: 0, takenOver: 0, ai: 0, resolved: 0 };
    for (const c of open ?? []) n[stateOf(c)]++;
    return n;
  }, [open]);
  const shown = useMemo(() => {
    const source = state === 'resolved' ? resolved : open;
    const local = source?.filter((c) => stateOf(c) === state && matches(c, query)) ?? null;
    if (!local || !found) return local;
    const listed = new Map(source!.map((c) => [c.threadId, c]));
    const mine = new Set(local.map((c) => c.threadId));
    const more = found
      .filter((c) => !mine.has(c.threadId))
      .map((c) => listed.get(c.threadId) ?? c)
      .filter((c) => stateOf(c) === state);
    return [...local, ...more].sort(latestFirst);
  }, [open, resolved, state, query, found]);
  const current = all.find((c) => c.threadId === selected) ?? null;

  // The tab's title counts the visitors waiting for a person, so it shows from another tab.
  useEffect(() => {
    const plain = document.title.replace(/^\(\d+\) /, '');
    document.title = counts.escalated ? `(${counts.escalated}) ${plain}` : plain;
  }, [counts.escalated, open]);
  useEffect(() => () => void (document.title = document.title.replace(/^\(\d+\) /, '')), []);

  // j / k: next and previous conversation in the list; / search; r reply (ConversationView).
  const move = (step: number) => {
    if (!shown?.length) return;
    const at = shown.findIndex((c) => c.threadId === selected);
    const next = shown[Math.min(shown.length - 1, Math.max(0, at < 0 ? 0 : at + step))];
    setSelected(next.threadId);
    listRef.current?.querySelector<HTMLElement>(`[data-id="${next.threadId}"] button`)?.focus();
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      if (typingIn(e.target)) return;
      if (e.key === 'j') move(1);
      else if (e.key === 'k') move(-1);
      else if (e.key === '/') searchRef.current?.focus();
      else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });

  const labels: Record<State, string> = {
    escalated: t.escalated,
    takenOver: t.takenOver,
    ai: t.ai,
    resolved: t.resolved,
  };
  const liveText = { live: t.live, connecting: t.connecting, reconnecting: t.reconnecting }[stream.live];

  return (
    <div class={`inbox${current ? ' has-open' : ''}`}>
      <header class="inbox-head">
        <h1>{t.title}</h1>
        <span class={`inbox-live ${stream.live}`} role="status">
          {liveText}
        </span>
      </header>
      <p class="muted inbox-lead">{t.lead}</p>
      <p class="visually-hidden" role="status">
        {announced}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="inbox-body">
        <section class="inbox-list" aria-labelledby="inbox-list-title">
          <h2 id="inbox-list-title" class="visually-hidden">
            {t.conversations}
          </h2>
          <fieldset class="inbox-filter">
            <legend class="visually-hidden">{t.filters}</legend>
            {STATES.map((s) => (
              <label key={s}>
                <input type="radio" name="inbox-state" checked={state === s} onChange={() => setState(s)} />
                <span>
                  {labels[s]}
                  {s !== 'resolved' && counts[s] > 0 && <b class="inbox-count"> {formatNumber(counts[s])}</b>}
                </span>
              </label>
            ))}
          </fieldset>
          <label class="field inbox-search">
            <span class="visually-hidden">{t.search}</span>
            <input
              ref={searchRef}
              type="search"
              placeholder={t.search}
              aria-label={t.search}
              value={query}
              onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
            />
          </label>
          {shown && !shown.length && <p class="muted inbox-empty">{query.trim() ? t.noMatch : t.none}</p>}
          <ul ref={listRef} class="inbox-rows">
            {shown?.map((c) => (
              <Row key={c.threadId} c={c} selected={c.threadId === selected} onOpen={() => setSelected(c.threadId)} />
            ))}
          </ul>
          <Notifications />
          <MyName />
          <Shortcuts />
        </section>
        <div class="inbox-main">
          {current ? (
            <ConversationView
              key={current.threadId}
              chatbotId={chatbotId!}
              conversation={current}
              me={me.value?.user.id ?? null}
              agentName={current.agentId ? (names.get(current.agentId) ?? null) : null}
              frame={lastFrame}
              stream={stream}
              onChanged={refresh}
              onBack={() => {
                setSelected(null);
                setTimeout(() => listRef.current?.querySelector<HTMLElement>('button')?.focus());
              }}
            />
          ) : (
            <p class="muted inbox-pick">{t.pick}</p>
          )}
        </div>
      </div>
    </div>
  );
}

function Row({ c, selected, onOpen }: { c: Conversation; selected: boolean; onOpen: () => void }) {
  const t = useInboxStrings();
  const unread = unreadOf(c);
  return (
    <li data-id={c.threadId} class={selected ? 'selected' : ''}>
      <button type="button" aria-current={selected ? 'true' : undefined} onClick={onOpen}>
        <span class="inbox-row-top">
          <bdi class="inbox-who">{visitorName(c)}</bdi>
          {unread > 0 && (
            <span class="inbox-unread" aria-label={fill(t.unread, { count: formatNumber(unread) })}>
              {formatNumber(unread)}
            </span>
          )}
        </span>
        <span class="inbox-preview muted" dir="auto">
          {c.lastMessage?.text ?? ''}
        </span>
        <span class="inbox-when muted small">
          <When iso={c.lastMessageAt ?? c.startedAt} />
        </span>
      </button>
    </li>
  );
}

function Shortcuts() {
  const t = useInboxStrings();
  const keys: Array<[string, string]> = [
    ['j', t.keyNext],
    ['k', t.keyPrev],
    ['r', t.keyReply],
    ['Ctrl+Enter', t.keySend],
    ['Esc', t.keyLeave],
    ['/', t.keySearch],
  ];
  return (
    <details class="inbox-keys">
      <summary>{t.shortcuts}</summary>
      <dl>
        {keys.map(([k, what]) => (
          <div key={k}>
            <dt>
              <kbd>{k}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
