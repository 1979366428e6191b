/**
 * The chatbot list (GET /chatbots): switch to one, create one (POST /chatbots), rename
 * (PATCH /chatbots/{id}/settings/general) and delete (DELETE /chatbots/{id}?confirm=true, after
 * the owner types the name). Buttons show only when the user's role allows them.
 */
import { useState } from 'preact/hooks';
import { ApiError, del, patch, post } from '../../api.js';
import { fill, formatDate, type Partial2, useStrings } from '../../i18n/index.js';
import { DEFAULT_CHATBOT_PAGE, PAGES } from '../../registry.js';
import { href, navigate } from '../../shell/router.js';
import { can, type Chatbot, chatbot, chatbots, reloadChatbots, selectChatbot } from '../../shell/state.js';
import { en, type Strings } from './strings/en.js';
import './chatbots.css';

const loaders = import.meta.glob<{ default: Partial2<Strings> }>(['./strings/*.ts', '!./strings/en.ts']);

export default function ChatbotsPage() {
  const t = useStrings(en, loaders);
  const [status, setStatus] = useState<{ text: string; error?: boolean } | null>(null);
  const firstPage = PAGES.find((p) => p.chatbot && (!p.scope || can(p.scope)))?.id ?? DEFAULT_CHATBOT_PAGE;
  const report = (err: unknown) =>
    setStatus({
      error: true,
      text:
        err instanceof ApiError && err.code === 'CHATBOT_LIMIT_REACHED'
          ? t.limit
          : fill(t.failed, { message: err instanceof Error ? err.message : String(err) }),
    });

  return (
    <section class="chatbots-page" aria-labelledby="chatbots-title">
      <h1 id="chatbots-title">{t.title}</h1>
      <p class="muted">{t.lead}</p>
      <p class={status?.error ? 'error' : 'notice'} role={status?.error ? 'alert' : 'status'} hidden={!status}>
        {status?.text}
      </p>
      {can('chatbots:write') && <CreateForm t={t} onDone={setStatus} onError={report} />}
      {chatbots.value.length === 0 ? (
        <p class="empty">{t.empty}</p>
      ) : (
        <ul class="chatbot-list">
          {chatbots.value.map((c) => (
            <ChatbotRow key={c.id} c={c} t={t} firstPage={firstPage} onDone={setStatus} onError={report} />
          ))}
        </ul>
      )}
    </section>
  );
}

interface RowProps {
  t: Strings;
  onDone(status: { text: string }): void;
  onError(err: unknown): void;
}

function CreateForm(props: RowProps) {
  const { t } = props;
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const title = String(new FormData(form).get('title') ?? '').trim();
    if (!title) return;
    setBusy(true);
    try {
      const made = await post<{ chatbot: Chatbot }>('/chatbots', { title });
      await reloadChatbots();
      selectChatbot(made.chatbot.id);
      form.reset();
      props.onDone({ text: fill(t.created, { name: title }) });
    } catch (err) {
      props.onError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card create-chatbot" onSubmit={submit}>
      <h2>{t.createHeading}</h2>
      <div class="row">
        <label class="field grow">
          <span>{t.name}</span>
          <input name="title" required maxLength={200} placeholder={t.namePlaceholder} />
        </label>
        <button class="primary" type="submit" disabled={busy}>
          {busy ? t.creating : t.create}
        </button>
      </div>
    </form>
  );
}

function ChatbotRow(props: RowProps & { c: Chatbot; firstPage: string }) {
  const { c, t } = props;
  const [mode, setMode] = useState<'view' | 'rename' | 'delete'>('view');
  const [busy, setBusy] = useState(false);
  const [typed, setTyped] = useState('');
  const selected = chatbot.value?.id === c.id;

  const act = async (work: () => Promise<unknown>, done: string) => {
    setBusy(true);
    try {
      await work();
      await reloadChatbots();
      setMode('view');
      props.onDone({ text: done });
    } catch (err) {
      props.onError(err);
    } finally {
      setBusy(false);
    }
  };
  const rename = (e: Event) => {
    e.preventDefault();
    const title = String(new FormData(e.currentTarget as HTMLFormElement).get('title') ?? '').trim();
    if (title && title !== c.title)
      act(() => patch(`/chatbots/${c.id}/settings/general`, { title }), fill(t.renamed, { name: title }));
    else setMode('view');
  };
  const remove = (e: Event) => {
    e.preventDefault();
    act(() => del(`/chatbots/${c.id}`, { query: { confirm: true } }), fill(t.deleted, { name: c.title }));
  };

  return (
    <li class={`card chatbot-row${selected ? ' selected' : ''}`}>
      <div class="row">
        <div class="grow">
          <h2 class="chatbot-name">
            {props.firstPage ? <a href={href(props.firstPage, c.id)}>{c.title}</a> : c.title}
          </h2>
          <p class="muted small">
            {fill(t.createdOn, { date: formatDate(c.createdAt) })}
            {selected && ` · ${t.selected}`}
          </p>
        </div>
        {mode === 'view' && (
          <div class="actions">
            {!selected && (
              <button
                onClick={() => (selectChatbot(c.id), props.firstPage && navigate(href(props.firstPage, c.id)))}
                aria-label={`${t.open}: ${c.title}`}
              >
                {t.open}
              </button>
            )}
            {can('settings:write') && (
              <button onClick={() => setMode('rename')} aria-label={`${t.rename}: ${c.title}`}>
                {t.rename}
              </button>
            )}
            {can('chatbots:delete') && (
              <button
                class="danger"
                onClick={() => (setTyped(''), setMode('delete'))}
                aria-label={`${t.delete}: ${c.title}`}
              >
                {t.delete}
              </button>
            )}
          </div>
        )}
      </div>
      {mode === 'rename' && (
        <form class="row" onSubmit={rename}>
          <label class="field grow">
            <span>{fill(t.renameLabel, { name: c.title })}</span>
            <input name="title" required maxLength={200} defaultValue={c.title} autoFocus />
          </label>
          <button class="primary" type="submit" disabled={busy}>
            {t.save}
          </button>
          <button type="button" onClick={() => setMode('view')}>
            {t.cancel}
          </button>
        </form>
      )}
      {mode === 'delete' && (
        <form class="confirm" onSubmit={remove} role="group" aria-labelledby={`delete-${c.id}`}>
          <h3 id={`delete-${c.id}`}>{fill(t.deleteHeading, { name: c.title })}</h3>
          <p>{t.deleteText}</p>
          <div class="row">
            <label class="field grow">
              <span>{t.deleteConfirm}</span>
              <input value={typed} onInput={(e) => setTyped((e.currentTarget as HTMLInputElement).value)} autoFocus />
            </label>
            <button class="danger" type="submit" disabled={busy || typed.trim() !== c.title.trim()}>
              {t.deleteButton}
            </button>
            <button type="button" onClick={() => setMode('view')}>
              {t.cancel}
            </button>
          </div>
        </form>
      )}
    </li>
  );
}
