/** "Add knowledge": one tab per kind, each a small form that starts an ingest job. */
import type { JSX } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { ApiError, post } from '../../api.js';
import { Confluence } from './Confluence.js';
import { FileDrop } from './FileDrop.js';
import { useKnowledgeStrings } from './strings.js';
import type { Started } from './types.js';

const KINDS = ['website', 'sitemap', 'links', 'youtube', 'text', 'files', 'confluence'] as const;
type Kind = (typeof KINDS)[number];

export interface AddProps {
  chatbotId: string;
  onStarted(started: Started): void;
}

/** The API's error in words: its message, then each failing field's message. */
export function errorText(err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  const details = Array.isArray(err.details)
    ? (err.details as { message?: string }[]).map((d) => d.message).filter(Boolean)
    : [];
  return [err.message, ...details, err.hint].filter(Boolean).join(' — ');
}

export function AddKnowledge(props: AddProps) {
  const t = useKnowledgeStrings();
  const [kind, setKind] = useState<Kind>('website');
  const tabs = useRef<Record<string, HTMLButtonElement | null>>({});

  const onKey = (e: JSX.TargetedKeyboardEvent<HTMLElement>) => {
    const i = KINDS.indexOf(kind);
    const rtl = document.documentElement.dir === 'rtl';
    const step = { ArrowRight: rtl ? -1 : 1, ArrowLeft: rtl ? 1 : -1, Home: -i, End: KINDS.length - 1 - i }[e.key];
    if (step === undefined) return;
    e.preventDefault();
    const next = KINDS[(i + step + KINDS.length) % KINDS.length];
    setKind(next);
    tabs.current[next]?.focus();
  };

  return (
    <section class="card kn-add" aria-labelledby="kn-add-title">
      <h2 id="kn-add-title">{t.add.title}</h2>
      <div role="tablist" aria-label={t.add.kinds} class="kn-tabs" onKeyDown={onKey}>
        {KINDS.map((k) => (
          <button
            key={k}
            ref={(el) => {
              tabs.current[k] = el;
            }}
            type="button"
            role="tab"
            id={`kn-tab-${k}`}
            aria-selected={kind === k}
            aria-controls="kn-panel"
            tabIndex={kind === k ? 0 : -1}
            onClick={() => setKind(k)}
          >
            {t.add[k]}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="kn-panel" aria-labelledby={`kn-tab-${kind}`} class="kn-panel">
        {kind === 'website' && <CrawlForm key="website" {...props} kind="website" />}
        {kind === 'sitemap' && <CrawlForm key="sitemap" {...props} kind="sitemap" />}
        {kind === 'links' && <UrlsForm key="links" {...props} kind="links" />}
        {kind === 'youtube' && <UrlsForm key="youtube" {...props} kind="youtube" />}
        {kind === 'text' && <TextForm {...props} />}
        {kind === 'files' && <FileDrop {...props} />}
        {kind === 'confluence' && <Confluence {...props} />}
      </div>
    </section>
  );
}

/** A live region: a notice or an error appears in it and is read out. */
export function Status(props: { message: { ok: boolean; text: string } | null }) {
  return (
    <div role="status" class="kn-status">
      {props.message && <p class={props.message.ok ? 'notice' : 'error'}>{props.message.text}</p>}
    </div>
  );
}

/** Submits to `path` and reports: a form's shared busy / done / error state. */
export function useSubmit(props: AddProps) {
  const t = useKnowledgeStrings();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const run = async (send: () => Promise<Started>, after?: () => void) => {
    setBusy(true);
    setMessage(null);
    try {
      const started = await send();
      props.onStarted(started);
      setMessage({ ok: true, text: started.alreadyRunning ? t.add.alreadyRunning : t.add.started });
      after?.();
    } catch (err) {
      setMessage({ ok: false, text: errorText(err) });
    } finally {
      setBusy(false);
    }
  };
  const status = <Status message={message} />;
  return { busy, run, status };
}

const value = (form: HTMLFormElement, name: string) =>
  (form.elements.namedItem(name) as HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement | null)?.value.trim() ??
  '';

function CrawlForm(props: AddProps & { kind: 'website' | 'sitemap' }) {
  const t = useKnowledgeStrings();
  const { busy, run, status } = useSubmit(props);
  const id = (name: string) => `kn-${props.kind}-${name}`;
  const onSubmit = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const maxPages = value(form, 'maxPages');
    const interval = value(form, 'interval');
    const prefix = props.kind === 'website' ? value(form, 'pathPrefix') : '';
    const body = {
      url: value(form, 'url'),
      ...(maxPages && { maxPages: Number(maxPages) }),
      ...(prefix && { pathPrefix: prefix.startsWith('/') ? prefix : `/${prefix}` }),
      syncIntervalMinutes: interval ? Number(interval) : null,
    };
    void run(() => post<Started>(`/chatbots/${props.chatbotId}/knowledge/${props.kind}`, body));
  };
  return (
    <form onSubmit={onSubmit} class="kn-form">
      <p class="muted">{props.kind === 'website' ? t.add.websiteHelp : t.add.sitemapHelp}</p>
      <label class="field">
        <span>{props.kind === 'website' ? t.add.startUrl : t.add.sitemapUrl}</span>
        <input
          id={id('url')}
          name="url"
          dir="ltr"
          type="url"
          required
          inputMode="url"
          autoComplete="url"
          placeholder={props.kind === 'website' ? 'https://www.example.com/' : 'https://www.example.com/sitemap.xml'}
        />
      </label>
      <div class="kn-row">
        {props.kind === 'website' && (
          <div>
            <label class="field">
              <span>{t.add.pathPrefix}</span>
              <input id={id('prefix')} name="pathPrefix" dir="ltr" placeholder="/help/" />
            </label>
          </div>
        )}
        <div>
          <label class="field">
            <span>{t.add.maxPages}</span>
            <input id={id('max')} name="maxPages" type="number" min={1} max={100000} inputMode="numeric" />
          </label>
        </div>
        <div>
          <label class="field">
            <span>{t.add.resync}</span>
            <select id={id('interval')} name="interval">
              <option value="">{t.add.never}</option>
              <option value="1440">{t.add.daily}</option>
              <option value="10080">{t.add.weekly}</option>
            </select>
          </label>
        </div>
      </div>
      <button type="submit" class="primary" disabled={busy}>
        {busy ? t.add.busy : t.add.submit}
      </button>
      {status}
    </form>
  );
}

function UrlsForm(props: AddProps & { kind: 'links' | 'youtube' }) {
  const t = useKnowledgeStrings();
  const { busy, run, status } = useSubmit(props);
  const onSubmit = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const urls = value(form, 'urls').split(/\s+/).filter(Boolean);
    void run(
      () => post<Started>(`/chatbots/${props.chatbotId}/knowledge/${props.kind}`, { urls }),
      () => form.reset(),
    );
  };
  return (
    <form onSubmit={onSubmit} class="kn-form">
      <p class="muted">{props.kind === 'links' ? t.add.linksHelp : t.add.youtubeHelp}</p>
      <label class="field">
        <span>{t.add.urls}</span>
        <textarea
          name="urls"
          dir="ltr"
          rows={4}
          required
          placeholder={
            props.kind === 'links'
              ? 'https://www.example.com/pricing\nhttps://www.example.com/terms.pdf'
              : 'https://www.youtube.com/watch?v=…'
          }
        />
      </label>
      <button type="submit" class="primary" disabled={busy}>
        {busy ? t.add.busy : t.add.submit}
      </button>
      {status}
    </form>
  );
}

function TextForm(props: AddProps) {
  const t = useKnowledgeStrings();
  const { busy, run, status } = useSubmit(props);
  const onSubmit = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const body = { title: value(form, 'title'), text: value(form, 'text') };
    void run(
      () => post<Started>(`/chatbots/${props.chatbotId}/knowledge/text`, body),
      () => form.reset(),
    );
  };
  return (
    <form onSubmit={onSubmit} class="kn-form">
      <p class="muted">{t.add.textHelp}</p>
      <label class="field">
        <span>{t.add.textTitle}</span>
        <input id="kn-text-title" name="title" required maxLength={300} />
      </label>
      <label class="field">
        <span>{t.add.textBody}</span>
        <textarea id="kn-text-body" name="text" rows={8} required maxLength={500000} />
      </label>
      <button type="submit" class="primary" disabled={busy}>
        {busy ? t.add.busy : t.add.submit}
      </button>
      {status}
    </form>
  );
}
