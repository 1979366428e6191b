/**
 * Install: the snippet (plain HTML, React, Vue) with copy buttons, the hosted page for mobile
 * webviews, identity-verification code for the site's server, and "check my site"
 * (POST /chatbots/{id}/install-check, which loads the page through the server's guarded client).
 */
import { useState } from 'preact/hooks';
import { post } from '../../api.js';
import { fill, type Partial2, useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../registry.js';
import {
  identifyCall,
  identityNode,
  identityPhp,
  identityPython,
  reactSnippet,
  scriptTag,
  vueSnippet,
} from './snippets.js';
import { en, type Strings } from './strings/en.js';
import './install.css';

const loaders = import.meta.glob<{ default: Partial2<Strings> }>(['./strings/*.ts', '!./strings/en.ts']);

interface Check {
  url: string;
  finalUrl: string | null;
  status: number | null;
  found: boolean;
  otherChatbotIds: string[];
  error: { code: string; message: string } | null;
}

export default function InstallPage({ chatbotId }: PageProps) {
  const t = useStrings(en, loaders);
  const origin = location.origin;
  const id = chatbotId!;
  return (
    <section class="install-page" aria-labelledby="install-title">
      <h1 id="install-title">{t.title}</h1>
      <p class="muted">{t.intro}</p>
      <div class="card">
        <h2>{t.snippetHeading}</h2>
        <p>{t.snippetText}</p>
        <Tabs
          t={t}
          name="snippet"
          tabs={[
            { id: 'html', label: t.html, code: scriptTag(origin, id) },
            { id: 'react', label: 'React', code: reactSnippet(origin, id) },
            { id: 'vue', label: 'Vue', code: vueSnippet(origin, id) },
          ]}
        />
      </div>
      <CheckSite t={t} chatbotId={id} />
      <div class="card">
        <h2>{t.mobileHeading}</h2>
        <p>{t.mobileText}</p>
        <Code t={t} label={t.mobileHeading} code={`${origin}/chat/${id}`} />
      </div>
      <div class="card">
        <h2>{t.identityHeading}</h2>
        <p>{t.identityText}</p>
        <Tabs
          t={t}
          name="identity"
          tabs={[
            { id: 'node', label: 'Node.js', code: identityNode },
            { id: 'php', label: 'PHP', code: identityPhp },
            { id: 'python', label: 'Python', code: identityPython },
          ]}
        />
        <p>{t.identifyText}</p>
        <Code t={t} label={t.identifyLabel} code={identifyCall} />
      </div>
    </section>
  );
}

function Tabs(props: { t: Strings; name: string; tabs: Array<{ id: string; label: string; code: string }> }) {
  const [current, setCurrent] = useState(props.tabs[0].id);
  const tab = props.tabs.find((x) => x.id === current)!;
  return (
    <div class="variants">
      <div class="variant-picker" role="radiogroup" aria-label={props.t.variant}>
        {props.tabs.map((x) => (
          <label key={x.id}>
            <input
              type="radio"
              name={props.name}
              value={x.id}
              checked={x.id === current}
              onChange={() => setCurrent(x.id)}
            />
            <span>{x.label}</span>
          </label>
        ))}
      </div>
      <Code t={props.t} label={tab.label} code={tab.code} />
    </div>
  );
}

function Code(props: { t: Strings; label: string; code: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.code);
      setCopied(true);
      setTimeout(() => setCopied(false), 3000);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div class="code">
      <pre tabIndex={0} aria-label={props.label}>
        <code>{props.code}</code>
      </pre>
      <div class="row">
        <button type="button" onClick={copy} aria-label={`${props.t.copy}: ${props.label}`}>
          {props.t.copy}
        </button>
        <span role="status" class="muted small">
          {copied ? props.t.copied : ''}
        </span>
      </div>
    </div>
  );
}

function CheckSite(props: { t: Strings; chatbotId: string }) {
  const { t } = props;
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ text: string; ok: boolean } | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    let url = String(new FormData(e.currentTarget as HTMLFormElement).get('url') ?? '').trim();
    if (!/^https?:\/\//i.test(url)) url = `https://${url}`;
    setBusy(true);
    setResult(null);
    try {
      const { check } = await post<{ check: Check }>(`/chatbots/${props.chatbotId}/install-check`, { url });
      const where = check.finalUrl ?? check.url;
      if (check.found) setResult({ ok: true, text: fill(t.found, { url: where }) });
      else if (check.error)
        setResult({ ok: false, text: fill(t.unreadable, { url: where, reason: check.error.message }) });
      else if (check.otherChatbotIds.length) setResult({ ok: false, text: fill(t.otherBot, { url: where }) });
      else setResult({ ok: false, text: fill(t.notFound, { url: where }) });
    } catch (err) {
      setResult({ ok: false, text: fill(t.failed, { message: err instanceof Error ? err.message : String(err) }) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card check-site" onSubmit={submit}>
      <h2>{t.checkHeading}</h2>
      <p>{t.checkText}</p>
      <div class="row">
        <label class="field grow">
          <span>{t.pageUrl}</span>
          <input
            name="url"
            type="text"
            inputMode="url"
            required
            maxLength={2048}
            placeholder="https://www.example.com/"
          />
        </label>
        <button class="primary" type="submit" disabled={busy}>
          {busy ? t.checking : t.check}
        </button>
      </div>
      {result && (
        <p class={result.ok ? 'notice' : 'error'} role={result.ok ? 'status' : 'alert'}>
          {result.text}
        </p>
      )}
    </form>
  );
}
