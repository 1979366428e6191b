/** The theming playground at /demo: settings controls, the real widget as preview, the agent console. */
import { render } from 'preact';
import { useState } from 'preact/hooks';
import type { WidgetConfig } from '../shared/protocol.js';
import { api, type Api } from './api.js';
import { Console } from './Console.js';
import { Playground } from './Playground.js';
import { embedSnippet, encodeBubble } from '../widget/loader/snippet-look.js';

let widgetOpen = false;

/** (Re)draws the real widget: with `config` when previewing unsaved settings, else from the server; an open window stays open. */
function loadWidget(chatbotId: string, config: WidgetConfig | null = null) {
  const w = window as unknown as { parley?: { push(c: unknown[]): void } | unknown[]; parleyPreview?: WidgetConfig };
  if (w.parley && !Array.isArray(w.parley)) w.parley.push(['destroy']);
  document.querySelectorAll('script[data-demo-widget]').forEach((s) => s.remove());
  if (config) w.parleyPreview = config;
  else delete w.parleyPreview;
  w.parley = [
    ['on', 'open', () => (widgetOpen = true)],
    ['on', 'close', () => (widgetOpen = false)],
    ...(widgetOpen ? [['open']] : []),
  ];
  const s = document.createElement('script');
  s.src = `/widget.js?v=${Date.now()}`;
  s.async = true;
  s.dataset.chatbotId = chatbotId;
  s.dataset.demoWidget = '';
  s.dataset.preview = '';
  document.body.append(s);
}

function Demo() {
  const params = new URLSearchParams(location.search);
  const [token, setToken] = useState('');
  const [client, setClient] = useState<Api | null>(null);
  const [bots, setBots] = useState<Array<{ id: string; title: string }>>([]);
  const [chatbotId, setChatbotId] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [bubble, setBubble] = useState<string | null>(null);
  // The snippet carries the bubble's look of the saved settings (what visitors get), read as widget.js reads them.
  const saved = (id: string) => {
    loadWidget(id);
    fetch(`/api/widget/${encodeURIComponent(id)}/config`, { cache: 'no-cache' })
      .then((r) => r.json())
      .then(
        (e) => setBubble(e.ok ? encodeBubble(e.data) : null),
        () => setBubble(null),
      );
  };
  const choose = (id: string) => {
    widgetOpen = false;
    setChatbotId(id);
    setBubble(null);
    saved(id);
  };
  const connect = async (e: Event) => {
    e.preventDefault();
    const c = api(token.trim());
    try {
      const d = await c.call('GET', '/chatbots?limit=100');
      setClient(c);
      setBots(d.chatbots);
      const wanted = params.get('chatbot');
      const first = d.chatbots.find((b: { id: string }) => b.id === wanted) ?? d.chatbots[0];
      if (first) choose(first.id);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const snippet = chatbotId ? embedSnippet(location.origin, chatbotId, bubble) : '';
  return (
    <main>
      <h1>Parley widget playground</h1>
      {!client ? (
        <form onSubmit={connect}>
          <label>
            API token (v2, settings and conversations scopes; kept in this tab only)
            <input
              type="password"
              value={token}
              onInput={(e) => setToken((e.target as HTMLInputElement).value)}
              required
            />
          </label>
          <button type="submit">Connect</button>
          {error && (
            <p class="warn" role="alert">
              {error}
            </p>
          )}
        </form>
      ) : (
        <>
          <label>
            Chatbot{' '}
            <select value={chatbotId ?? ''} onChange={(e) => choose((e.target as HTMLSelectElement).value)}>
              {bots.map((b) => (
                <option value={b.id}>{b.title}</option>
              ))}
            </select>
          </label>
          {chatbotId && (
            <>
              <h2>Embed snippet</h2>
              <pre class="snippet">{snippet}</pre>
              <button type="button" onClick={() => navigator.clipboard?.writeText(snippet)}>
                Copy
              </button>
              <Playground
                client={client}
                chatbotId={chatbotId}
                preview={(config) => (config ? loadWidget(chatbotId, config) : saved(chatbotId))}
              />
              <Console key={chatbotId} client={client} chatbotId={chatbotId} />
            </>
          )}
        </>
      )}
    </main>
  );
}

render(<Demo />, document.getElementById('demo')!);
