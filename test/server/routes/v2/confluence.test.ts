import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SecretBox } from '../../../../server/domain/secrets.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { serveConfluence, storagePage, type ConfluenceStandin } from '../../../helpers/confluence-standin.js';

let t: TestApp;
let cf: ConfluenceStandin;
let token: string;
let chatbotId: string;
let otherChatbotId: string;
/** A Data Center connection (Bearer PAT) and a Cloud one (Basic email:token) to the same stand-in. */
let dcId: string;
let cloudId: string;

const base = (id = chatbotId) => `/api/v2/chatbots/${id}`;
const settle = () => t.app.services.queue.drain(60_000);
const store = () => t.app.services.store.knowledge;

const SPACES = [
  { key: 'DOCS', name: 'Product documentation' },
  { key: 'OPS', name: 'Operations' },
  { key: 'HR', name: 'People team' },
  { key: 'ENG', name: 'Engineering' },
  { key: '~jane', name: 'Jane Doe', type: 'personal' as const },
];

const PAGES = [
  {
    id: '101',
    spaceKey: 'DOCS',
    title: 'Installing Parley',
    body: storagePage({
      intro: 'Parley installs as a single Node.js service with an embedded SQLite database.',
      sections: [
        {
          heading: 'Requirements',
          text: 'You need Node.js 20 or later and two gigabytes of memory for the extraction workers.',
        },
        {
          heading: 'First start',
          text: 'On first start Parley generates its secret key into the data directory unless SECRET_KEY is set.',
        },
      ],
      code: { language: 'bash', text: 'npm install --omit=dev && PARLEY_PORT=3000 npx parley start --migrate' },
      note: 'Back up the data directory before upgrading between minor versions.',
    }),
  },
  {
    id: '102',
    spaceKey: 'DOCS',
    title: 'Configuring webhooks',
    ancestors: ['101'],
    body: storagePage({
      intro: 'Webhooks notify your systems when a visitor escalates a conversation or leaves a lead.',
      sections: [
        {
          heading: 'Signing',
          text: 'Each delivery carries the configured token in the X-WEBHOOK-TOKEN header so receivers can verify the sender.',
        },
        {
          heading: 'Retries',
          text: 'Failed deliveries are retried with exponential backoff for up to twenty-four hours.',
        },
      ],
    }),
  },
  {
    id: '103',
    spaceKey: 'DOCS',
    title: 'Refund policy',
    body: storagePage({
      intro: 'Customers may cancel within thirty days and receive a prorated refund of their subscription.',
      sections: [
        {
          heading: 'Exceptions',
          text: 'Enterprise contracts with annual invoicing follow the terms of their master agreement instead.',
        },
      ],
    }),
  },
  {
    id: '201',
    spaceKey: 'OPS',
    title: 'On-call rotation',
    body: storagePage({
      intro: 'The on-call engineer answers pages from the monitoring system within fifteen minutes.',
      sections: [
        { heading: 'Handover', text: 'Handover happens every Monday at ten with a written summary of open incidents.' },
      ],
    }),
  },
  {
    id: '202',
    spaceKey: 'OPS',
    title: 'Database failover',
    body: storagePage({
      intro: 'Promote the PostgreSQL replica with pg_ctl promote when the primary stops answering health checks.',
      sections: [
        {
          heading: 'Afterwards',
          text: 'Rebuild a new replica from the promoted primary before the next maintenance window.',
        },
      ],
    }),
  },
];

async function connect(body: Record<string, unknown>, chatbot = chatbotId) {
  return t.call('POST', `${base(chatbot)}/knowledge/sources/confluence`, token, body);
}

async function job(id: string) {
  return (await t.call('GET', `${base()}/ingest-jobs/${id}`, token)).body.data.job;
}

beforeAll(async () => {
  cf = await serveConfluence({ spaces: SPACES, pages: PAGES });
  t = await buildTestApp({ env: { ALLOW_PRIVATE_FETCH: '1', QUEUE_POLL_MS: '20' } });
  token = (await t.token()).token;
  chatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Wiki' })).body.data.chatbot.id;
  otherChatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Other' })).body.data.chatbot.id;
});
afterAll(async () => {
  await t?.close();
  await cf?.close();
});

describe('connecting', () => {
  test('a refused token is a 400 naming apiToken, with a hint, and nothing is stored', async () => {
    const res = await connect({ baseUrl: cf.url, apiToken: 'wrong-token' });
    expect(res.status).toBe(400);
    expect(res.body.ok).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.message).toMatch(/refused these credentials.*401/);
    expect(res.body.error.details).toEqual([{ path: ['apiToken'], message: expect.stringMatching(/401/) }]);
    expect(res.body.error.hint).toMatch(/personal access token/);

    const cloud = await connect({ baseUrl: cf.url, deployment: 'cloud', email: cf.cloud.email, apiToken: 'not-it' });
    expect(cloud.status).toBe(400);
    expect(cloud.body.error.hint).toMatch(/id\.atlassian\.com/);

    const noEmail = await connect({ baseUrl: cf.url, deployment: 'cloud', apiToken: cf.cloud.apiToken });
    expect(noEmail.status).toBe(400);
    expect(noEmail.body.error.details[0].path).toEqual(['email']);

    const notConfluence = await connect({ baseUrl: `${cf.url}/elsewhere`, apiToken: cf.datacenter.token });
    expect(notConfluence.status).toBe(400);
    expect(notConfluence.body.error.details[0].path).toEqual(['baseUrl']);

    expect(await store().sources.list(chatbotId)).toEqual([]);
  });

  test('Data Center: a personal access token as Bearer, under /rest/api; 201 with the source and never the token', async () => {
    const res = await connect({
      baseUrl: `${cf.url}/`,
      apiToken: cf.datacenter.token,
      name: 'Team wiki',
      syncIntervalMinutes: 60,
    });
    expect(res.status).toBe(201);
    const source = res.body.data.source;
    expect(source).toMatchObject({
      type: 'confluence',
      name: 'Team wiki',
      status: 'idle',
      documentCount: 0,
      hasCredentials: true,
      syncIntervalMinutes: 60,
      config: { baseUrl: cf.url, deployment: 'datacenter', email: null, spaces: [], pageIds: [] },
    });
    expect(JSON.stringify(res.body)).not.toContain(cf.datacenter.token);
    dcId = source.id;
    const calls = cf.requests.filter((r) => r.authorized);
    expect(calls.at(-1)).toEqual({ path: '/rest/api/user/current', deployment: 'datacenter', authorized: true });
  });

  test('Cloud: email + API token as Basic auth, under /wiki/rest/api; the /wiki in the address is dropped', async () => {
    const res = await connect({
      baseUrl: `${cf.url}/wiki`,
      deployment: 'cloud',
      email: cf.cloud.email,
      apiToken: cf.cloud.apiToken,
    });
    expect(res.status).toBe(201);
    expect(res.body.data.source.config).toMatchObject({ baseUrl: cf.url, deployment: 'cloud', email: cf.cloud.email });
    expect(res.body.data.source.name).toBe(`Confluence (${new URL(cf.url).host})`);
    cloudId = res.body.data.source.id;
    expect(cf.requests.filter((r) => r.authorized).at(-1)).toEqual({
      path: '/wiki/rest/api/user/current',
      deployment: 'cloud',
      authorized: true,
    });
  });

  test('connecting the same site and account again refreshes that connection (200), it does not add one', async () => {
    const again = await connect({ baseUrl: cf.url, apiToken: cf.datacenter.token, name: 'Team wiki (renamed)' });
    expect(again.status).toBe(200);
    expect(again.body.data.source.id).toBe(dcId);
    expect(again.body.data.source.name).toBe('Team wiki (renamed)');
    const sources = (await t.call('GET', `${base()}/knowledge/sources`, token)).body.data.sources;
    expect(sources.filter((s: { type: string }) => s.type === 'confluence')).toHaveLength(2);
  });

  test('credentials are stored encrypted: the token appears in no column and nowhere in the database file', async () => {
    const rows = await (t.database.db as any).selectFrom('sources').selectAll().execute();
    const dump = JSON.stringify(rows);
    for (const secret of [
      cf.datacenter.token,
      cf.cloud.apiToken,
      Buffer.from(`${cf.cloud.email}:${cf.cloud.apiToken}`).toString('base64'),
    ]) {
      expect(dump).not.toContain(secret);
    }
    const dc = rows.find((r: { id: string }) => r.id === dcId);
    expect(dc.credentials).toMatch(/^v1\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
    // It is our AES-GCM under the server key, bound to its row.
    const box = new SecretBox(t.config.secretKey);
    expect(box.open(dc.credentials, `source:${dcId}`)).toEqual({ email: null, apiToken: cf.datacenter.token });
    expect(() => box.open(dc.credentials, `source:${cloudId}`)).toThrow(/could not be decrypted/);

    // The SQLite files themselves (database and write-ahead log) hold no plaintext token.
    const files = readdirSync(t.dataDir).filter((f) => f.startsWith('test.db'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const bytes = readFileSync(join(t.dataDir, f));
      expect(bytes.includes(Buffer.from(cf.datacenter.token))).toBe(false);
      expect(bytes.includes(Buffer.from(cf.cloud.apiToken))).toBe(false);
    }
  });

  test('no route returns the credentials: one source, the list, the documents', async () => {
    for (const url of [
      `${base()}/knowledge/sources/${dcId}`,
      `${base()}/knowledge/sources/${cloudId}`,
      `${base()}/knowledge/sources`,
      `${base()}/knowledge/sources/${dcId}/documents`,
    ]) {
      const res = await t.call('GET', url, token);
      expect(res.status, url).toBe(200);
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(cf.datacenter.token);
      expect(text).not.toContain(cf.cloud.apiToken);
      expect(text).not.toContain('credentials"');
    }
    const one = (await t.call('GET', `${base()}/knowledge/sources/${dcId}`, token)).body.data.source;
    expect(one).toMatchObject({ id: dcId, type: 'confluence', hasCredentials: true });
  });
});

describe('browsing spaces and pages', () => {
  test('spaces page through Confluence with our own cursor; limit 1..100, default 20', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `connectionId=${dcId}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await t.call('GET', `${base()}/knowledge/sources/confluence/spaces?${q}`, token);
      expect(res.status).toBe(200);
      const { spaces, pagination } = res.body.data;
      expect(spaces.length).toBeLessThanOrEqual(2);
      expect(pagination.limit).toBe(2);
      expect(res.body.meta.nextCursor).toBe(pagination.nextCursor);
      expect(pagination.hasNextPage).toBe(pagination.nextCursor !== null);
      seen.push(...spaces.map((s: { key: string }) => s.key));
      cursor = pagination.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(SPACES.map((s) => s.key));

    const all = await t.call('GET', `${base()}/knowledge/sources/confluence/spaces?connectionId=${dcId}`, token);
    expect(all.body.data.pagination).toEqual({ limit: 20, hasNextPage: false, nextCursor: null });
    expect(all.body.data.spaces[0]).toEqual({
      key: 'DOCS',
      name: 'Product documentation',
      type: 'global',
      url: `${cf.url}/display/DOCS`,
      imported: false,
    });
    expect(all.body.data.spaces[4]).toMatchObject({ key: '~jane', type: 'personal' });

    const cloud = await t.call(
      'GET',
      `${base()}/knowledge/sources/confluence/spaces?connectionId=${cloudId}&limit=1`,
      token,
    );
    expect(cloud.body.data.spaces[0].url).toBe(`${cf.url}/wiki/spaces/DOCS`);
    expect(cf.requests.at(-1)).toMatchObject({
      path: '/wiki/rest/api/space?start=0&limit=1',
      deployment: 'cloud',
      authorized: true,
    });
  });

  test('limit 0 or 101 is 400 VALIDATION_FAILED; a cursor from elsewhere is 400 INVALID_CURSOR', async () => {
    for (const path of ['spaces', 'pages']) {
      for (const limit of [0, 101]) {
        const res = await t.call(
          'GET',
          `${base()}/knowledge/sources/confluence/${path}?connectionId=${dcId}&limit=${limit}`,
          token,
        );
        expect(res.status, `${path} ${limit}`).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
      }
    }
    const ok = await t.call(
      'GET',
      `${base()}/knowledge/sources/confluence/spaces?connectionId=${dcId}&limit=100`,
      token,
    );
    expect(ok.status).toBe(200);
    const first = await t.call(
      'GET',
      `${base()}/knowledge/sources/confluence/spaces?connectionId=${dcId}&limit=1`,
      token,
    );
    const cursor = encodeURIComponent(first.body.data.pagination.nextCursor);
    const onPages = await t.call(
      'GET',
      `${base()}/knowledge/sources/confluence/pages?connectionId=${dcId}&cursor=${cursor}`,
      token,
    );
    expect(onPages.status).toBe(400);
    expect(onPages.body.error.code).toBe('INVALID_CURSOR');
    const onOther = await t.call(
      'GET',
      `${base()}/knowledge/sources/confluence/spaces?connectionId=${cloudId}&cursor=${cursor}`,
      token,
    );
    expect(onOther.body.error.code).toBe('INVALID_CURSOR');
    const forged = await t.call(
      'GET',
      `${base()}/knowledge/sources/confluence/spaces?connectionId=${dcId}&cursor=abc.def`,
      token,
    );
    expect(forged.body.error.code).toBe('INVALID_CURSOR');
    const missing = await t.call('GET', `${base()}/knowledge/sources/confluence/spaces`, token);
    expect(missing.status).toBe(400);
  });

  test('pages of a space; when Confluence caps the page size, its next link is followed', async () => {
    cf.maxLimit = 2;
    try {
      const first = await t.call(
        'GET',
        `${base()}/knowledge/sources/confluence/pages?connectionId=${dcId}&spaceKey=DOCS&limit=100`,
        token,
      );
      expect(first.status).toBe(200);
      expect(first.body.data.pages).toHaveLength(2);
      expect(first.body.data.pages[0]).toEqual({
        id: '101',
        title: 'Installing Parley',
        spaceKey: 'DOCS',
        url: `${cf.url}/display/DOCS/Installing+Parley`,
        version: 1,
        updatedAt: '2024-05-01T10:00:00.000Z',
        imported: false,
      });
      expect(first.body.data.pagination).toMatchObject({ limit: 100, hasNextPage: true });
      const second = await t.call(
        'GET',
        `${base()}/knowledge/sources/confluence/pages?connectionId=${dcId}&spaceKey=DOCS&limit=100&cursor=${encodeURIComponent(first.body.data.pagination.nextCursor)}`,
        token,
      );
      expect(second.body.data.pages.map((p: { id: string }) => p.id)).toEqual(['103']);
      expect(second.body.data.pagination).toEqual({ limit: 100, hasNextPage: false, nextCursor: null });
      // The cursor is bound to its space: it does not page another one.
      const elsewhere = await t.call(
        'GET',
        `${base()}/knowledge/sources/confluence/pages?connectionId=${dcId}&spaceKey=OPS&cursor=${encodeURIComponent(first.body.data.pagination.nextCursor)}`,
        token,
      );
      expect(elsewhere.body.error.code).toBe('INVALID_CURSOR');
    } finally {
      cf.maxLimit = 100;
    }
    const everything = await t.call(
      'GET',
      `${base()}/knowledge/sources/confluence/pages?connectionId=${cloudId}`,
      token,
    );
    expect(everything.body.data.pages.map((p: { id: string }) => p.id)).toEqual(['101', '102', '103', '201', '202']);
    expect(everything.body.data.pages[0].url).toBe(`${cf.url}/wiki/spaces/DOCS/pages/101/Installing+Parley`);
  });

  test('Confluence throttling or a revoked token is said plainly', async () => {
    cf.failNext(429, 1, { 'retry-after': '30' });
    const limited = await t.call('GET', `${base()}/knowledge/sources/confluence/spaces?connectionId=${dcId}`, token);
    expect(limited.status).toBe(502);
    expect(limited.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(limited.body.error.message).toMatch(/rate-limiting.*429/);
    expect(limited.body.error.hint).toMatch(/30 s/);
    expect(limited.headers['retry-after']).toBe('30');

    const saved = cf.datacenter.token;
    cf.datacenter.token = 'rotated-token';
    try {
      const revoked = await t.call('GET', `${base()}/knowledge/sources/confluence/pages?connectionId=${dcId}`, token);
      expect(revoked.status).toBe(400);
      expect(revoked.body.error.code).toBe('VALIDATION_FAILED');
      expect(revoked.body.error.details[0].path).toEqual(['connectionId']);
      expect(revoked.body.error.hint).toMatch(/connect again/);
    } finally {
      cf.datacenter.token = saved;
    }
  });

  test("another chatbot's connection, a non-Confluence source and unknown ids are 404", async () => {
    const foreign = await connect({ baseUrl: cf.url, apiToken: cf.datacenter.token }, otherChatbotId);
    expect(foreign.status).toBe(201);
    const foreignId = foreign.body.data.source.id;
    for (const [method, url, body] of [
      ['GET', `${base()}/knowledge/sources/confluence/spaces?connectionId=${foreignId}`],
      ['GET', `${base()}/knowledge/sources/confluence/pages?connectionId=${foreignId}`],
      ['POST', `${base()}/knowledge/sources/${foreignId}/import`, { spaceKeys: ['DOCS'] }],
      ['GET', `${base()}/knowledge/sources/${foreignId}`],
      ['GET', `${base()}/knowledge/sources/confluence/spaces?connectionId=nope`],
    ] as const) {
      const res = await t.call(method, url, token, body);
      expect(res.status, url).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const text = await t.call('POST', `${base()}/knowledge/text`, token, {
      title: 'Note',
      text: 'Plain text note about opening hours.',
    });
    await settle();
    const textSource = text.body.data.source.id;
    const res = await t.call('GET', `${base()}/knowledge/sources/confluence/spaces?connectionId=${textSource}`, token);
    expect(res.status).toBe(404);
    expect(res.body.error.message).toMatch(/Confluence connection/);
    const imp = await t.call('POST', `${base()}/knowledge/sources/${textSource}/import`, token, { pageIds: ['101'] });
    expect(imp.status).toBe(404);
    // The static segment does not shadow a real connection id, nor the other way round.
    expect((await t.call('GET', `${base()}/knowledge/sources/confluence`, token)).status).toBe(404);
    expect((await t.call('GET', `${base()}/knowledge/sources/${dcId}`, token)).body.data.source.id).toBe(dcId);
  });
});

describe('importing and syncing', () => {
  test('importing a space indexes its pages: storage format read as HTML, code and macros included, searchable', async () => {
    const res = await t.call('POST', `${base()}/knowledge/sources/${dcId}/import`, token, { spaceKeys: ['DOCS'] });
    expect(res.status).toBe(202);
    expect(res.body.data.job).toMatchObject({ sourceId: dcId, trigger: 'add', status: 'queued', counts: { found: 1 } });
    expect(res.body.data.source.config.spaces).toEqual(['DOCS']);
    await settle();
    const done = await job(res.body.data.job.id);
    expect(done.status).toBe('succeeded');
    expect(done.counts).toEqual({ found: 4, done: 4, failed: 0, skipped: 0 }); // the space + its 3 pages

    const docs = (await t.call('GET', `${base()}/knowledge/sources/${dcId}/documents`, token)).body.data.documents;
    expect(docs.map((d: { title: string }) => d.title).sort()).toEqual([
      'Configuring webhooks',
      'Installing Parley',
      'Refund policy',
    ]);
    const install = docs.find((d: { title: string }) => d.title === 'Installing Parley');
    expect(install).toMatchObject({ url: `${cf.url}/display/DOCS/Installing+Parley`, kind: 'html', status: 'indexed' });

    const hits = await store().chunks.searchLexical(chatbotId, 'how much memory do the extraction workers need', 3);
    expect(hits[0].title).toBe('Installing Parley');
    expect(hits[0].url).toBe(`${cf.url}/display/DOCS/Installing+Parley`);
    expect(hits[0].text).toContain('Requirements\n\nYou need Node.js 20');
    // The code macro's CDATA body is content; its parameters (language, linenumbers) are not.
    const code = await store().chunks.searchLexical(chatbotId, 'npm install omit dev migrate', 3);
    expect(code[0].text).toContain('npx parley start --migrate');
    const all = (await store().chunks.searchLexical(chatbotId, 'parley', 50)).map((h) => h.text).join('\n');
    expect(all).not.toMatch(/linenumbers|maxLevel/);
    expect(all).toContain('Back up the data directory');
    expect(all).toContain('timeout | 30 s');
    const webhooks = await store().chunks.searchLexical(chatbotId, 'X-WEBHOOK-TOKEN header verify sender', 3);
    expect(webhooks[0].title).toBe('Configuring webhooks');

    const source = (await t.call('GET', `${base()}/knowledge/sources/${dcId}`, token)).body.data.source;
    expect(source).toMatchObject({ status: 'ready', documentCount: 3 });
    expect(source.nextSyncAt).toBeTruthy(); // syncIntervalMinutes 60
    const spaces = (await t.call('GET', `${base()}/knowledge/sources/confluence/spaces?connectionId=${dcId}`, token))
      .body.data.spaces;
    expect(spaces.find((s: { key: string }) => s.key === 'DOCS').imported).toBe(true);
  });

  test('importing chosen pages over Cloud indexes only those', async () => {
    const res = await t.call('POST', `${base()}/knowledge/sources/${cloudId}/import`, token, {
      pageIds: ['202', '202'],
    });
    expect(res.status).toBe(202);
    await settle();
    expect((await job(res.body.data.job.id)).counts).toEqual({ found: 1, done: 1, failed: 0, skipped: 0 });
    const docs = (await t.call('GET', `${base()}/knowledge/sources/${cloudId}/documents`, token)).body.data.documents;
    expect(docs.map((d: { title: string; url: string }) => [d.title, d.url])).toEqual([
      ['Database failover', `${cf.url}/wiki/spaces/OPS/pages/202/Database+failover`],
    ]);
    const hits = await store().chunks.searchLexical(chatbotId, 'promote the postgresql replica', 3);
    expect(hits[0].title).toBe('Database failover');
    expect(cf.requests.filter((r) => r.path.startsWith('/wiki/rest/api/content/202')).every((r) => r.authorized)).toBe(
      true,
    );

    const pages = (
      await t.call('GET', `${base()}/knowledge/sources/confluence/pages?connectionId=${cloudId}&spaceKey=OPS`, token)
    ).body.data.pages;
    expect(pages.map((p: { id: string; imported: boolean }) => [p.id, p.imported])).toEqual([
      ['201', false],
      ['202', true],
    ]);

    const empty = await t.call('POST', `${base()}/knowledge/sources/${cloudId}/import`, token, {});
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('VALIDATION_FAILED');
    const badId = await t.call('POST', `${base()}/knowledge/sources/${cloudId}/import`, token, { pageIds: ['../x'] });
    expect(badId.status).toBe(400);
  });

  test('a re-sync updates a changed page, leaves an unchanged one alone and drops a deleted one', async () => {
    const before = new Map(
      (await t.call('GET', `${base()}/knowledge/sources/${dcId}/documents`, token)).body.data.documents.map(
        (d: { title: string }) => [d.title, d],
      ),
    );
    cf.setPage({
      ...PAGES[2],
      body: storagePage({
        intro: 'Customers may cancel within sixty days and receive a full refund, no questions asked.',
        sections: [
          { heading: 'Exceptions', text: 'Marketplace purchases are refunded by the marketplace that sold them.' },
        ],
      }),
    });
    cf.removePage('102');
    await new Promise((r) => setTimeout(r, 5)); // a later updatedAt for what does change

    const res = await t.call('POST', `${base()}/knowledge/sources/${dcId}/sync`, token);
    expect(res.status).toBe(202);
    expect(res.body.data.job.trigger).toBe('resync');
    await settle();
    const done = await job(res.body.data.job.id);
    expect(done.status).toBe('succeeded');
    // The space, its two remaining pages, and the page it no longer lists, looked up once more.
    expect(done.counts).toEqual({ found: 4, done: 3, failed: 0, skipped: 1 });
    expect(done.errors).toEqual([]); // a page gone from Confluence is skipped, not an error

    const after = new Map(
      (await t.call('GET', `${base()}/knowledge/sources/${dcId}/documents`, token)).body.data.documents.map(
        (d: { title: string }) => [d.title, d],
      ),
    );
    expect([...after.keys()].sort()).toEqual(['Installing Parley', 'Refund policy']);
    const unchanged = after.get('Installing Parley') as { id: string; updatedAt: string };
    expect(unchanged).toEqual(before.get('Installing Parley'));
    const changed = after.get('Refund policy') as { id: string; updatedAt: string };
    const old = before.get('Refund policy') as { id: string; updatedAt: string };
    expect(changed.id).toBe(old.id);
    expect(changed.updatedAt > old.updatedAt).toBe(true);

    const hits = await store().chunks.searchLexical(chatbotId, 'marketplace purchases refunded', 3);
    expect(hits[0].title).toBe('Refund policy');
    expect(
      (await store().chunks.searchLexical(chatbotId, 'prorated', 5)).filter((h) => h.title === 'Refund policy'),
    ).toEqual([]);
    expect(await store().chunks.searchLexical(chatbotId, 'X-WEBHOOK-TOKEN', 5)).toEqual([]);
  });

  test('a source whose interval has elapsed is synced by the scheduler from its saved selection', async () => {
    cf.setPage({
      id: '104',
      spaceKey: 'DOCS',
      title: 'Data retention',
      body: '<h1>Retention</h1><p>Conversation transcripts are kept for ninety days and then deleted automatically by a nightly job.</p>',
    });
    await store().sources.update(dcId, { nextSyncAt: new Date(Date.now() - 1000).toISOString() });
    expect(await t.app.services.knowledge.syncDue()).toBe(1);
    await settle();
    const jobs = (await t.call('GET', `${base()}/ingest-jobs?limit=1`, token)).body.data.jobs;
    expect(jobs[0]).toMatchObject({ sourceId: dcId, trigger: 'schedule', status: 'succeeded' });
    const hits = await store().chunks.searchLexical(chatbotId, 'how long are conversation transcripts kept', 3);
    expect(hits[0].title).toBe('Data retention');
    expect(hits[0].headingPath).toEqual(['Retention']);
  });

  test('deleting the connection removes its documents and their chunks', async () => {
    const docs = (await t.call('GET', `${base()}/knowledge/sources/${dcId}/documents`, token)).body.data.documents;
    expect(docs.length).toBeGreaterThan(0);
    const refused = await t.call('DELETE', `${base()}/knowledge/sources/${dcId}`, token);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('CONFIRMATION_REQUIRED');
    const res = await t.call('DELETE', `${base()}/knowledge/sources/${dcId}?confirm=true`, token);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain(cf.datacenter.token);
    expect(await store().sources.get(dcId)).toBeNull();
    expect(
      await store().documents.many(
        chatbotId,
        docs.map((d: { id: string }) => d.id),
      ),
    ).toEqual([]);
    expect(await store().chunks.searchLexical(chatbotId, 'extraction workers memory', 5)).toEqual([]);
    expect(await store().chunks.searchLexical(chatbotId, 'transcripts ninety days', 5)).toEqual([]);
    // The Cloud connection's page is untouched.
    expect((await store().chunks.searchLexical(chatbotId, 'promote the postgresql replica', 3))[0].title).toBe(
      'Database failover',
    );
    expect(
      (await t.call('GET', `${base()}/knowledge/sources/confluence/spaces?connectionId=${dcId}`, token)).status,
    ).toBe(404);
  });
});
