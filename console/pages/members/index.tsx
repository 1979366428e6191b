/**
 * The chatbot's team (GET /chatbots/{id}/members): who works on it, with their role and the
 * other chatbots they are on; invite by e-mail to this chatbot and any others (POST per chatbot),
 * change a role (PATCH: the role is account-wide), remove from this chatbot (DELETE, confirmed).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, del, get, patch, post } from '../../api.js';
import { fill, formatDate, type Partial2, useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../registry.js';
import { can, chatbots, me } from '../../shell/state.js';
import { en, type Strings } from './strings/en.js';
import './members.css';

const loaders = import.meta.glob<{ default: Partial2<Strings> }>(['./strings/*.ts', '!./strings/en.ts']);

interface Member {
  id: string;
  userId: string;
  email: string;
  name: string | null;
  role: 'owner' | 'admin' | 'member';
  createdAt: string;
}

export default function MembersPage({ chatbotId }: PageProps) {
  const t = useStrings(en, loaders);
  const [members, setMembers] = useState<Member[] | null>(null);
  /** userId → titles of the other chatbots they are on. */
  const [elsewhere, setElsewhere] = useState<Map<string, string[]>>(new Map());
  const [status, setStatus] = useState<{ text: string; error?: boolean } | null>(null);
  const report = (err: unknown) =>
    setStatus({ error: true, text: fill(t.failed, { message: err instanceof Error ? err.message : String(err) }) });
  const load = async () => {
    try {
      const all = await Promise.all(
        chatbots.value.map((c) =>
          get<{ members: Member[] }>(`/chatbots/${c.id}/members`).then(
            (d) => ({ c, members: d.members }),
            () => ({ c, members: [] as Member[] }),
          ),
        ),
      );
      const map = new Map<string, string[]>();
      for (const { c, members: list } of all)
        if (c.id !== chatbotId) for (const m of list) map.set(m.userId, [...(map.get(m.userId) ?? []), c.title]);
      setElsewhere(map);
      setMembers(all.find((x) => x.c.id === chatbotId)?.members ?? []);
    } catch (err) {
      report(err);
    }
  };
  useEffect(() => void load(), [chatbotId]);

  return (
    <section class="members-page" aria-labelledby="members-title">
      <h1 id="members-title">{t.title}</h1>
      <p class="muted">{t.intro}</p>
      <p class={status?.error ? 'error' : 'notice'} role={status?.error ? 'alert' : 'status'} hidden={!status}>
        {status?.text}
      </p>
      {!can('members:write') && <p class="muted">{t.readOnly}</p>}
      {can('members:write') && (
        <InviteForm
          t={t}
          chatbotId={chatbotId!}
          onDone={(text) => {
            setStatus({ text });
            void load();
          }}
          onError={report}
        />
      )}
      {!members && <p class="loading">{t.loading}</p>}
      {members && members.length === 0 && <p class="empty">{t.empty}</p>}
      <ul class="member-list">
        {members?.map((m) => (
          <MemberRow
            key={m.id}
            m={m}
            t={t}
            chatbotId={chatbotId!}
            others={elsewhere.get(m.userId) ?? []}
            onDone={(text) => {
              setStatus({ text });
              void load();
            }}
            onError={report}
          />
        ))}
      </ul>
    </section>
  );
}

interface RowProps {
  t: Strings;
  chatbotId: string;
  onDone(text: string): void;
  onError(err: unknown): void;
}

function InviteForm(props: RowProps) {
  const { t } = props;
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const email = String(data.get('email') ?? '').trim();
    const name = String(data.get('name') ?? '').trim();
    const role = data.get('role') === 'admin' ? 'admin' : 'member';
    const ids = [props.chatbotId, ...data.getAll('also').map(String)];
    setBusy(true);
    setProblem(null);
    try {
      for (const id of ids) await post(`/chatbots/${id}/members`, { email, role, ...(name && { name }) });
      form.reset();
      props.onDone(fill(t.invited, { email }));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'VALIDATION_FAILED') setProblem(err.message);
      else props.onError(err);
    } finally {
      setBusy(false);
    }
  };
  const others = chatbots.value.filter((c) => c.id !== props.chatbotId);
  return (
    <form class="card invite" onSubmit={submit}>
      <h2>{t.inviteHeading}</h2>
      <div class="row">
        <label class="field grow">
          <span>{t.email}</span>
          <input name="email" type="email" required maxLength={254} autoComplete="off" />
        </label>
        <label class="field grow">
          <span>{t.name}</span>
          <input name="name" maxLength={80} autoComplete="off" />
        </label>
        <label class="field">
          <span>{t.role}</span>
          <select name="role">
            <option value="member">{t.member}</option>
            <option value="admin">{t.admin}</option>
          </select>
        </label>
      </div>
      <p class="muted small">{t.roleHelp}</p>
      {others.length > 0 && (
        <fieldset class="also">
          <legend>{t.alsoOn}</legend>
          {others.map((c) => (
            <label key={c.id} class="check">
              <input type="checkbox" name="also" value={c.id} />
              <span>{c.title}</span>
            </label>
          ))}
        </fieldset>
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <div class="actions">
        <button class="primary" type="submit" disabled={busy}>
          {t.invite}
        </button>
      </div>
    </form>
  );
}

function MemberRow(props: RowProps & { m: Member; others: string[] }) {
  const { m, t } = props;
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const self = me.value?.user.id === m.userId;
  const editable = m.role !== 'owner' && !self;
  const act = async (work: () => Promise<unknown>, done: string) => {
    setBusy(true);
    try {
      await work();
      props.onDone(done);
    } catch (err) {
      props.onError(err);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  const who = m.name || m.email;
  return (
    <li class="card member-row">
      <div class="row">
        <div class="grow">
          <h2 class="member-name">
            {who}
            {self && <span class="muted small"> ({t.you})</span>}
          </h2>
          {m.name && <p class="muted small">{m.email}</p>}
          <p class="muted small">
            {props.others.length ? fill(t.alsoOnList, { names: props.others.join(', ') }) : t.onlyHere}
            {' · '}
            {fill(t.since, { date: formatDate(m.createdAt) })}
          </p>
        </div>
        {editable && can('members:write') ? (
          <label class="field">
            <span>{fill(t.roleOf, { name: who })}</span>
            <select
              value={m.role}
              disabled={busy}
              onChange={(e) => {
                const role = e.currentTarget.value;
                void act(
                  () => patch(`/chatbots/${props.chatbotId}/members/${m.id}`, { role }),
                  fill(t.roleChanged, { name: who, role: role === 'admin' ? t.admin : t.member }),
                );
              }}
            >
              <option value="member">{t.member}</option>
              <option value="admin">{t.admin}</option>
            </select>
          </label>
        ) : (
          <span class="role-badge">{t[m.role]}</span>
        )}
        {editable && can('members:delete') && !confirming && (
          <button class="danger" onClick={() => setConfirming(true)} aria-label={`${t.remove}: ${who}`}>
            {t.remove}
          </button>
        )}
      </div>
      {confirming && (
        <div class="confirm row" role="group" aria-label={fill(t.removeText, { name: who })}>
          <p class="grow">{fill(t.removeText, { name: who })}</p>
          <button
            class="danger"
            disabled={busy}
            autoFocus
            onClick={() =>
              act(
                () => del(`/chatbots/${props.chatbotId}/members/${m.id}`, { query: { confirm: true } }),
                fill(t.removed, { name: who }),
              )
            }
          >
            {t.removeButton}
          </button>
          <button onClick={() => setConfirming(false)}>{t.cancel}</button>
        </div>
      )}
    </li>
  );
}
