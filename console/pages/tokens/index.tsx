/**
 * API tokens (GET/POST/DELETE /tokens): the account's tokens with what they may do and when they
 * were last used; a new one is made with an access level (or chosen scopes) and optional chatbots,
 * and its secret is shown once, with a copy button; revoking asks first.
 */
import { useEffect, useState } from 'preact/hooks';
import { SCOPES, STANDARD_SCOPES } from '../../../shared/scopes.js';
import { ApiError, del, listAll, post } from '../../api.js';
import { fill, formatDate, type Partial2, useStrings } from '../../i18n/index.js';
import { can, chatbots } from '../../shell/state.js';
import { en, type Strings } from './strings/en.js';
import './tokens.css';

const loaders = import.meta.glob<{ default: Partial2<Strings> }>(['./strings/*.ts', '!./strings/en.ts']);

interface Token {
  id: string;
  name: string;
  access: 'standard' | 'full' | 'custom';
  scopes: string[];
  chatbotIds: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** Scopes by resource: knowledge → [read, write, delete]. */
const RESOURCES = [...new Set(SCOPES.map((s) => s.split(':')[0]))].map((r) => ({
  resource: r,
  scopes: SCOPES.filter((s) => s.startsWith(`${r}:`)),
}));

/** A token holds no scope its maker lacks (the API refuses it): offer only what the role holds. */
const offered = () =>
  (['standard', 'full', 'custom'] as const).filter(
    (a) => a === 'custom' || (a === 'full' ? SCOPES : STANDARD_SCOPES).every((s) => can(s)),
  );

export default function TokensPage() {
  const t = useStrings(en, loaders);
  const [tokens, setTokens] = useState<Token[] | null>(null);
  const [status, setStatus] = useState<{ text: string; error?: boolean } | null>(null);
  const [secret, setSecret] = useState<{ name: string; token: string } | null>(null);
  const report = (err: unknown) =>
    setStatus({ error: true, text: fill(t.failed, { message: err instanceof Error ? err.message : String(err) }) });
  const load = () => listAll<Token>('/tokens', 'tokens', 1000).then(setTokens, report);
  useEffect(() => void load(), []);

  const active = tokens?.filter((k) => !k.revokedAt) ?? [];
  const revoked = tokens?.filter((k) => k.revokedAt) ?? [];
  return (
    <section class="tokens-page" aria-labelledby="tokens-title">
      <h1 id="tokens-title">{t.title}</h1>
      <p class="muted">{t.lead}</p>
      <p class={status?.error ? 'error' : 'notice'} role={status?.error ? 'alert' : 'status'} hidden={!status}>
        {status?.text}
      </p>
      {secret && <Secret t={t} {...secret} onDone={() => setSecret(null)} />}
      {can('tokens:write') && !secret && (
        <CreateForm
          t={t}
          onCreated={(made) => {
            setSecret(made);
            setStatus(null);
            void load();
          }}
          onError={report}
        />
      )}
      <h2>{t.active}</h2>
      {!tokens && <p class="loading">{t.loading}</p>}
      {tokens && active.length === 0 && <p class="empty">{t.empty}</p>}
      <ul class="token-list">
        {active.map((k) => (
          <TokenRow
            key={k.id}
            k={k}
            t={t}
            onRevoked={() => {
              setStatus({ text: fill(t.revoked, { name: k.name }) });
              void load();
            }}
            onError={report}
          />
        ))}
      </ul>
      {revoked.length > 0 && (
        <details class="revoked">
          <summary>{fill(t.revokedList, { count: revoked.length })}</summary>
          <ul class="token-list">
            {revoked.map((k) => (
              <TokenRow key={k.id} k={k} t={t} onRevoked={() => undefined} onError={report} />
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function CreateForm(props: {
  t: Strings;
  onCreated(made: { name: string; token: string }): void;
  onError(e: unknown): void;
}) {
  const { t } = props;
  const levels = offered();
  const [access, setAccess] = useState<Token['access']>(levels[0]);
  const [limit, setLimit] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const scopes = data.getAll('scope').map(String);
    const chatbotIds = data.getAll('chatbot').map(String);
    if (access === 'custom' && scopes.length === 0) return setProblem(t.pickScope);
    if (limit && chatbotIds.length === 0) return setProblem(t.pickChatbot);
    setProblem(null);
    setBusy(true);
    try {
      const name = String(data.get('name') ?? '').trim();
      const made = await post<{ token: string; name: string }>('/tokens', {
        name,
        access,
        ...(access === 'custom' && { scopes }),
        ...(limit && { chatbotIds }),
      });
      form.reset();
      setAccess(levels[0]);
      setLimit(false);
      props.onCreated({ name: made.name, token: made.token });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'TOKEN_SCOPE_NOT_ALLOWED') setProblem(t.notAllowed);
      else props.onError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card token-create" onSubmit={submit}>
      <h2>{t.createHeading}</h2>
      <label class="field">
        <span>{t.name}</span>
        <input name="name" required maxLength={100} placeholder={t.namePlaceholder} />
      </label>
      <fieldset class="choices">
        <legend>{t.access}</legend>
        {levels.map((a) => (
          <label key={a} class="choice">
            <input type="radio" name="access" value={a} checked={access === a} onChange={() => setAccess(a)} />
            <span>
              <strong>{t[a]}</strong>
              <span class="muted small">{t[`${a}Help`]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {access === 'custom' && (
        <fieldset class="scopes">
          <legend>{t.scopes}</legend>
          {RESOURCES.filter((r) => r.scopes.some(can)).map((r) => (
            <div key={r.resource} class="scope-row" role="group" aria-label={r.resource}>
              <span class="scope-resource">{r.resource}</span>
              {r.scopes.filter(can).map((s) => (
                <label key={s} class="scope">
                  <input type="checkbox" name="scope" value={s} />
                  <span>{s}</span>
                </label>
              ))}
            </div>
          ))}
        </fieldset>
      )}
      <fieldset class="choices">
        <legend>{t.chatbots}</legend>
        <label class="choice">
          <input type="radio" name="limit" checked={!limit} onChange={() => setLimit(false)} />
          <span>{t.allChatbots}</span>
        </label>
        <label class="choice">
          <input type="radio" name="limit" checked={limit} onChange={() => setLimit(true)} />
          <span>{t.someChatbots}</span>
        </label>
        {limit && (
          <div class="chatbot-picks">
            {chatbots.value.map((c) => (
              <label key={c.id} class="scope">
                <input type="checkbox" name="chatbot" value={c.id} />
                <span>{c.title}</span>
              </label>
            ))}
          </div>
        )}
      </fieldset>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <div class="actions">
        <button class="primary" type="submit" disabled={busy}>
          {busy ? t.creating : t.create}
        </button>
      </div>
    </form>
  );
}

function Secret(props: { t: Strings; name: string; token: string; onDone(): void }) {
  const { t } = props;
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.token);
      setCopied(true);
    } catch {
      (document.getElementById('token-secret') as HTMLInputElement | null)?.select();
    }
  };
  return (
    <div class="card token-secret" role="group" aria-labelledby="token-secret-title">
      <h2 id="token-secret-title">{fill(t.madeHeading, { name: props.name })}</h2>
      <p>{t.madeText}</p>
      <div class="row">
        <label class="field grow">
          <span>{t.secret}</span>
          <input id="token-secret" readOnly value={props.token} onFocus={(e) => e.currentTarget.select()} />
        </label>
        <button type="button" class="primary" onClick={copy}>
          {t.copy}
        </button>
      </div>
      <p class="notice" role="status" hidden={!copied}>
        {t.copied}
      </p>
      <div class="actions">
        <button type="button" onClick={props.onDone}>
          {t.stored}
        </button>
      </div>
    </div>
  );
}

function TokenRow(props: { k: Token; t: Strings; onRevoked(): void; onError(e: unknown): void }) {
  const { k, t } = props;
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const names = k.chatbotIds?.map((id) => chatbots.value.find((c) => c.id === id)?.title ?? id);
  const revoke = async () => {
    setBusy(true);
    try {
      await del(`/tokens/${k.id}`);
      props.onRevoked();
    } catch (err) {
      props.onError(err);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  return (
    <li class="card token-row">
      <div class="row">
        <div class="grow">
          <h3 class="token-name">{k.name || t.unnamed}</h3>
          <p class="muted small">
            {k.access === 'custom' ? fill(t.customScopes, { scopes: k.scopes.join(', ') }) : t[k.access]}
            {' · '}
            {names ? fill(t.onlyChatbots, { names: names.join(', ') }) : t.allChatbots}
          </p>
          <p class="muted small">
            {fill(t.createdOn, { date: formatDate(k.createdAt) })}
            {' · '}
            {k.revokedAt
              ? fill(t.revokedOn, { date: formatDate(k.revokedAt) })
              : k.lastUsedAt
                ? fill(t.lastUsed, { date: formatDate(k.lastUsedAt, { dateStyle: 'medium', timeStyle: 'short' }) })
                : t.neverUsed}
          </p>
        </div>
        {!k.revokedAt && can('tokens:write') && !confirming && (
          <div class="actions">
            <button class="danger" onClick={() => setConfirming(true)} aria-label={`${t.revoke}: ${k.name}`}>
              {t.revoke}
            </button>
          </div>
        )}
      </div>
      {confirming && (
        <div class="confirm row" role="group" aria-label={fill(t.revokeHeading, { name: k.name })}>
          <p class="grow">{fill(t.revokeText, { name: k.name })}</p>
          <button class="danger" onClick={revoke} disabled={busy} autoFocus>
            {t.revokeButton}
          </button>
          <button onClick={() => setConfirming(false)}>{t.cancel}</button>
        </div>
      )}
    </li>
  );
}
