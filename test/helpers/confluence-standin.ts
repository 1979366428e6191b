/**
 * A stand-in Confluence on 127.0.0.1 serving the REST API v1 paths and JSON shapes the
 * connector uses, for both deployments at once: Cloud under /wiki/rest/api (Basic auth with
 * email:apiToken) and Data Center under /rest/api (Bearer personal access token). A request
 * without the right Authorization header gets Confluence's 401; lists page like Confluence
 * (`{results, start, limit, size, _links.next}`, `limit` capped at `maxLimit`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandinSpace {
  key: string;
  name: string;
  type?: 'global' | 'personal';
}

export interface StandinPage {
  id: string;
  spaceKey: string;
  title: string;
  /** Storage-format XHTML. */
  body: string;
  version?: number;
  ancestors?: string[];
}

export interface ConfluenceStandin {
  url: string;
  cloud: { email: string; apiToken: string };
  datacenter: { username: string; token: string };
  spaces: StandinSpace[];
  pages: Map<string, Required<StandinPage>>;
  /** Every request: path with query, the deployment its prefix belongs to, and whether it was authorised. */
  requests: { path: string; deployment: 'cloud' | 'datacenter'; authorized: boolean }[];
  /** Confluence caps `limit`; lower it to test paging past the cap. */
  maxLimit: number;
  /** Answers the next matching requests with this status (e.g. 429, 503) instead. */
  failNext(status: number, count?: number, headers?: Record<string, string>): void;
  /** Adds or edits a page; an edit bumps its version like saving in Confluence does. */
  setPage(page: StandinPage): void;
  removePage(id: string): void;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', ...headers }).end(JSON.stringify(body));
};

const errorBody = (status: number, message: string, reason: string) => ({
  statusCode: status,
  data: { authorized: status !== 401, valid: true, errors: [], successful: false },
  message,
  reason,
});

export async function serveConfluence(
  options: { spaces?: StandinSpace[]; pages?: StandinPage[]; maxLimit?: number } = {},
): Promise<ConfluenceStandin> {
  const pages = new Map<string, Required<StandinPage>>();
  const put = (p: StandinPage) => pages.set(p.id, { version: 1, ancestors: [], ...p });
  for (const p of options.pages ?? []) put(p);
  let failures: { status: number; count: number; headers: Record<string, string> } | null = null;

  const standin: ConfluenceStandin = {
    url: '',
    cloud: { email: 'jane@example.com', apiToken: 'ATATT3xFfGF0-cloud-token-3c9e1f' },
    datacenter: { username: 'jane', token: 'NjE5ODc2NTQzMjEw-dc-pat-8b2d4e' },
    spaces: options.spaces ?? [],
    pages,
    requests: [],
    maxLimit: options.maxLimit ?? 100,
    failNext(status, count = 1, headers = {}) {
      failures = { status, count, headers };
    },
    setPage(page) {
      const old = pages.get(page.id);
      put({ ...page, version: old ? old.version + 1 : (page.version ?? 1) });
    },
    removePage(id) {
      pages.delete(id);
    },
    close: async () => {},
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://standin');
    const cloud = url.pathname.startsWith('/wiki/rest/api/');
    const dc = !cloud && url.pathname.startsWith('/rest/api/');
    if (!cloud && !dc)
      return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Page not found</body></html>');
    const deployment = cloud ? 'cloud' : 'datacenter';
    const expected = cloud
      ? `Basic ${Buffer.from(`${standin.cloud.email}:${standin.cloud.apiToken}`).toString('base64')}`
      : `Bearer ${standin.datacenter.token}`;
    const authorized = req.headers.authorization === expected;
    standin.requests.push({ path: url.pathname + url.search, deployment, authorized });
    if (!authorized) {
      return json(
        res,
        401,
        errorBody(401, 'This request requires authentication.', 'Unauthorized'),
        cloud ? {} : { 'www-authenticate': 'OAuth realm="http%3A%2F%2Fstandin"' },
      );
    }
    if (failures && failures.count > 0) {
      failures.count--;
      const { status, headers } = failures;
      return json(
        res,
        status,
        errorBody(status, status === 429 ? 'Rate limit exceeded' : 'Service unavailable', 'Error'),
        headers,
      );
    }

    const context = cloud ? '/wiki' : '';
    const base = `${standin.url}${context}`;
    const api = url.pathname.slice(context.length); // /rest/api/...
    const start = Math.max(0, Number(url.searchParams.get('start') ?? 0) || 0);
    const limit = Math.min(standin.maxLimit, Math.max(1, Number(url.searchParams.get('limit') ?? 25) || 25));
    const expand = new Set((url.searchParams.get('expand') ?? '').split(',').filter(Boolean));

    const list = (all: unknown[]) => {
      const results = all.slice(start, start + limit);
      const links: Record<string, string> = { base, context, self: `${base}${api}` };
      if (start + limit < all.length) {
        const next = new URLSearchParams(url.searchParams);
        next.set('start', String(start + limit));
        next.set('limit', String(limit));
        links.next = `${api}?${next.toString()}`;
      }
      return { results, start, limit, size: results.length, _links: links };
    };

    const spaceJson = (s: StandinSpace, i: number) => ({
      id: 98_000 + i,
      key: s.key,
      name: s.name,
      type: s.type ?? 'global',
      status: 'current',
      _expandable: { settings: `/rest/api/space/${s.key}/settings`, homepage: '', description: '' },
      _links: { webui: cloud ? `/spaces/${s.key}` : `/display/${s.key}`, self: `${base}/rest/api/space/${s.key}` },
    });
    const pageJson = (p: Required<StandinPage>, withBody: boolean) => {
      const space = standin.spaces.findIndex((s) => s.key === p.spaceKey);
      const webui = cloud
        ? `/spaces/${p.spaceKey}/pages/${p.id}/${encodeURIComponent(p.title).replace(/%20/g, '+')}`
        : `/display/${p.spaceKey}/${encodeURIComponent(p.title).replace(/%20/g, '+')}`;
      return {
        id: p.id,
        type: 'page',
        status: 'current',
        title: p.title,
        ...(expand.has('space') && space >= 0 ? { space: spaceJson(standin.spaces[space], space) } : {}),
        ...(expand.has('version')
          ? {
              version: {
                by: { type: 'known', displayName: 'Jane Doe' },
                when: `2024-05-0${Math.min(9, p.version)}T10:00:00.000Z`,
                number: p.version,
                minorEdit: false,
              },
            }
          : {}),
        ...(expand.has('ancestors')
          ? {
              ancestors: p.ancestors.map((id) => ({
                id,
                type: 'page',
                status: 'current',
                title: pages.get(id)?.title ?? id,
              })),
            }
          : {}),
        ...(withBody && expand.has('body.storage')
          ? {
              body: {
                storage: {
                  value: p.body,
                  representation: 'storage',
                  _expandable: { content: `/rest/api/content/${p.id}` },
                },
              },
            }
          : {}),
        _expandable: { children: `/rest/api/content/${p.id}/child`, history: `/rest/api/content/${p.id}/history` },
        _links: {
          webui,
          edit: `/pages/resumedraft.action?draftId=${p.id}`,
          tinyui: `/x/${p.id}`,
          self: `${base}/rest/api/content/${p.id}`,
        },
      };
    };

    if (req.method !== 'GET') return json(res, 405, errorBody(405, 'Method not allowed', 'Method Not Allowed'));
    if (api === '/rest/api/user/current') {
      return cloud
        ? json(res, 200, {
            type: 'known',
            accountId: '5b10ac8d82e05b22cc7d4ef5',
            accountType: 'atlassian',
            email: standin.cloud.email,
            publicName: 'Jane Doe',
            displayName: 'Jane Doe',
            _links: { base, context },
          })
        : json(res, 200, {
            type: 'known',
            username: standin.datacenter.username,
            userKey: '8a7f808a8c0c9f2c018c0ca1b2a30001',
            displayName: 'Jane Doe',
            _links: { base, context },
          });
    }
    if (api === '/rest/api/space') return json(res, 200, list(standin.spaces.map(spaceJson)));
    if (api === '/rest/api/content') {
      const key = url.searchParams.get('spaceKey');
      const all = [...pages.values()]
        .filter((p) => !key || p.spaceKey === key)
        .sort((a, b) => Number(a.id) - Number(b.id));
      return json(res, 200, list(all.map((p) => pageJson(p, false))));
    }
    const one = /^\/rest\/api\/content\/([^/]+)$/.exec(api);
    if (one) {
      const p = pages.get(decodeURIComponent(one[1]));
      if (!p) return json(res, 404, errorBody(404, `No content found with id: ContentId{id=${one[1]}}`, 'Not Found'));
      return json(res, 200, pageJson(p, true));
    }
    return json(res, 404, errorBody(404, `null for uri: ${base}${api}`, 'Not Found'));
  };

  const server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  standin.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standin.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return standin;
}

/** A page body in storage format, the way Confluence's editor saves one. */
export const storagePage = (parts: {
  intro: string;
  sections: { heading: string; text: string }[];
  code?: { language: string; text: string };
  note?: string;
}) =>
  [
    `<p>${parts.intro}</p>`,
    '<ac:structured-macro ac:name="toc" ac:schema-version="1" ac:macro-id="7c6c4a1e"><ac:parameter ac:name="maxLevel">2</ac:parameter></ac:structured-macro>',
    ...parts.sections.map((s) => `<h2>${s.heading}</h2><p>${s.text}</p>`),
    parts.code
      ? `<ac:structured-macro ac:name="code" ac:schema-version="1" ac:macro-id="1d3e8f2a"><ac:parameter ac:name="language">${parts.code.language}</ac:parameter><ac:parameter ac:name="linenumbers">true</ac:parameter><ac:plain-text-body><![CDATA[${parts.code.text}]]></ac:plain-text-body></ac:structured-macro>`
      : '',
    parts.note
      ? `<ac:structured-macro ac:name="info" ac:schema-version="1" ac:macro-id="4b2a9c10"><ac:parameter ac:name="title">Good to know</ac:parameter><ac:rich-text-body><p>${parts.note}</p></ac:rich-text-body></ac:structured-macro>`
      : '',
    '<p>See also <ac:link><ri:page ri:content-title="Overview" ri:space-key="DOCS" /><ac:plain-text-link-body><![CDATA[the overview]]></ac:plain-text-link-body></ac:link>.</p>',
    '<table><colgroup><col /><col /></colgroup><tbody><tr><th>Setting</th><th>Default</th></tr><tr><td>timeout</td><td>30 s</td></tr></tbody></table>',
  ].join('');
