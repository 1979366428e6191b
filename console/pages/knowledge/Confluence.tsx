/** Confluence: connect a site (credentials tried once by the API), then import chosen spaces. */
import { useState } from 'preact/hooks';
import { get, post } from '../../api.js';
import { fill } from '../../i18n/index.js';
import { errorText, useSubmit, type AddProps } from './AddKnowledge.js';
import { useKnowledgeStrings } from './strings.js';
import type { Source, Started } from './types.js';

interface Space {
  key: string;
  name: string;
  imported: boolean;
}

export function Confluence(props: AddProps) {
  const t = useKnowledgeStrings();
  const base = `/chatbots/${props.chatbotId}/knowledge/sources`;
  const [source, setSource] = useState<Source | null>(null);
  const [spaces, setSpaces] = useState<Space[] | null>(null);
  const [chosen, setChosen] = useState<string[]>([]);
  const [connecting, setConnecting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { busy, run, status } = useSubmit(props);

  const connect = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const field = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
    setConnecting(true);
    setError(null);
    try {
      const email = field('email');
      const { source } = await post<{ source: Source }>(`${base}/confluence`, {
        baseUrl: field('baseUrl'),
        apiToken: field('apiToken'),
        ...(email && { email }),
      });
      const page = await get<{ spaces: Space[] }>(`${base}/confluence/spaces`, {
        query: { connectionId: source.id, limit: 100 },
      });
      setSource(source);
      setSpaces(page.spaces);
      setChosen([]);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setConnecting(false);
    }
  };

  if (source && spaces)
    return (
      <form
        class="kn-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run(() => post<Started>(`${base}/${source.id}/import`, { spaceKeys: chosen }));
        }}
      >
        <fieldset>
          <legend>{fill(t.confluence.connected, { name: source.name })}</legend>
          {!spaces.length && <p class="muted">{t.confluence.noSpaces}</p>}
          {spaces.map((s) => (
            <label key={s.key} class="kn-check">
              <input
                type="checkbox"
                checked={chosen.includes(s.key)}
                onChange={(e) =>
                  setChosen((list) =>
                    (e.currentTarget as HTMLInputElement).checked ? [...list, s.key] : list.filter((k) => k !== s.key),
                  )
                }
              />
              {s.name} <span class="muted small">({s.key})</span>
              {s.imported && <span class="kn-badge">{t.confluence.imported}</span>}
            </label>
          ))}
        </fieldset>
        <button type="submit" class="primary" disabled={busy || !chosen.length}>
          {t.confluence.import}
        </button>
        {status}
      </form>
    );

  return (
    <form class="kn-form" onSubmit={connect}>
      <p class="muted">{t.confluence.help}</p>
      <label class="field">
        <span>{t.confluence.baseUrl}</span>
        <input
          id="kn-cf-url"
          name="baseUrl"
          dir="ltr"
          type="url"
          required
          placeholder="https://example.atlassian.net"
        />
      </label>
      <label class="field">
        <span>{t.confluence.email}</span>
        <input id="kn-cf-email" name="email" dir="ltr" type="email" autoComplete="off" />
      </label>
      <label class="field">
        <span>{t.confluence.token}</span>
        <input id="kn-cf-token" name="apiToken" dir="ltr" type="password" required autoComplete="off" />
      </label>
      <button type="submit" class="primary" disabled={connecting}>
        {connecting ? t.confluence.connecting : t.confluence.connect}
      </button>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}
