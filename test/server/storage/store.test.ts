/**
 * The repository suite, run unchanged on both dialects through the Store port: SQLite on a
 * temporary file, PostgreSQL in a schema of its own (dropped afterwards). Each test works in a
 * fresh account, so tests never see each other's rows. In CI (CI=true) an unreachable
 * PostgreSQL fails the file instead of skipping it (helpers/dialects.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresAdapter } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newId } from '../../../server/domain/ids.js';
import type {
  AccountRecord,
  ChatbotRecord,
  InvoiceRecord,
  Page,
  Store,
  TokenRecord,
  UserRecord,
} from '../../../server/domain/ports.js';
import { openDatabase, type DatabaseHandle } from '../../../server/storage/dialects/index.js';
import { migrateToLatest, migrations } from '../../../server/storage/migrations/index.js';
import { createStore } from '../../../server/storage/store.js';
import { buildTestApp } from '../../helpers/app.js';
import { describeOnDialects } from '../../helpers/dialects.js';
import { openPostgresSchema, POSTGRES_URL } from '../../helpers/postgres.js';
import { openTestDatabase } from '../../helpers/database.js';

/** Deterministic timestamps: `at(n)` is n seconds after a fixed instant, ISO-8601 UTC. */
const at = (n: number) => new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString();

/** Every page of a keyset listing, following `next` until it is null. */
async function allPages<T>(fetch: (after: Page<T>['next']) => Promise<Page<T>>): Promise<T[][]> {
  const pages: T[][] = [];
  let after: Page<T>['next'] = null;
  for (let i = 0; i < 100; i++) {
    const page = await fetch(after);
    pages.push(page.items);
    if (!page.next) return pages;
    after = page.next;
  }
  throw new Error('pagination did not end');
}

/** Newest first, ties on createdAt broken by id, descending, in plain byte order. */
const newestFirst = <T extends { createdAt: string; id: string }>(rows: T[]) =>
  [...rows].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1));

describeOnDialects('Store on %s', (dialect) => {
  let database: DatabaseHandle;
  let store: Store;
  let firstMigration: string[];
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const opened = await openTestDatabase(dialect);
    ({ database, store, migrations: firstMigration } = opened);
    cleanup = () => opened.close();
  });
  afterAll(() => cleanup?.());

  const account = (over: Partial<AccountRecord> = {}): AccountRecord => ({
    id: newId(),
    name: 'Acme',
    plan: {
      name: 'test',
      maxChatbots: 5,
      maxPages: 100,
      webhooks: true,
      analytics: false,
      brandingRemoval: true,
      active: false,
    },
    createdAt: at(0),
    updatedAt: at(0),
    ...over,
  });
  const user = (accountId: string, over: Partial<UserRecord> = {}): UserRecord => ({
    id: newId(),
    accountId,
    email: `${newId().toLowerCase()}@example.com`,
    name: null,
    role: 'owner',
    createdAt: at(0),
    ...over,
  });
  /** A fresh account with its owner. */
  async function tenant(): Promise<{ account: AccountRecord; owner: UserRecord }> {
    const a = account();
    const owner = user(a.id);
    await store.accounts.insert(a);
    await store.users.insert(owner);
    return { account: a, owner };
  }
  const chatbot = (accountId: string, createdById: string, over: Partial<ChatbotRecord> = {}): ChatbotRecord => ({
    id: newId(),
    accountId,
    createdById,
    title: 'Bot',
    description: '',
    settings: {},
    createdAt: at(0),
    updatedAt: at(0),
    ...over,
  });
  const token = (a: AccountRecord, u: UserRecord, over: Partial<TokenRecord> = {}): TokenRecord => ({
    id: newId(),
    accountId: a.id,
    userId: u.id,
    kind: 'api',
    name: 'ci',
    access: 'custom',
    scopes: ['chatbots:read', 'settings:write'],
    chatbotIds: null,
    createdAt: at(0),
    lastUsedAt: null,
    revokedAt: null,
    ...over,
  });

  test('migrations are idempotent: a second run applies nothing', async () => {
    expect(firstMigration).toContain('0001-foundation');
    const started: string[] = [];
    expect(await database.migrate((name) => started.push(name))).toEqual([]);
    expect(started).toEqual([]);
    await expect(store.ping()).resolves.toBeUndefined();
  });

  if (dialect === 'postgres') {
    test('migrations run in their own schema while another schema holds migrated tables', async () => {
      // The suite's schema is migrated already; kysely must not mistake its tables for these.
      // No schema argument: the search_path's schema is found on its own, as for an operator's URL.
      const second = await openPostgresSchema();
      try {
        expect(await migrateToLatest(second.database.db, 'postgres')).toEqual(firstMigration);
        expect(await migrateToLatest(second.database.db, 'postgres')).toEqual([]);
        expect(await createStore(second.database.db).accounts.list()).toEqual([]);
      } finally {
        await second.database.close();
        await second.drop();
      }
    });
  }

  describe('accounts and users', () => {
    test('insert and get round-trip every field, booleans as booleans', async () => {
      const a = account({ name: 'Zoë & Co' });
      await store.accounts.insert(a);
      expect(await store.accounts.get(a.id)).toEqual(a);
      expect(await store.accounts.get('no-such-account')).toBeNull();
    });

    test('list returns accounts oldest first', async () => {
      const later = account({ createdAt: at(-50), updatedAt: at(-50) });
      const earlier = account({ createdAt: at(-100), updatedAt: at(-100) });
      await store.accounts.insert(later);
      await store.accounts.insert(earlier);
      const ids = (await store.accounts.list()).map((a) => a.id);
      expect(ids.indexOf(earlier.id)).toBeGreaterThanOrEqual(0);
      expect(ids.indexOf(earlier.id)).toBeLessThan(ids.indexOf(later.id));
    });

    test('update changes only the given plan fields and the update time', async () => {
      const a = account();
      await store.accounts.insert(a);
      await store.accounts.update(
        a.id,
        { plan: { maxChatbots: 0, webhooks: false, analytics: true, active: true } },
        at(10),
      );
      expect(await store.accounts.get(a.id)).toEqual({
        ...a,
        plan: { ...a.plan, maxChatbots: 0, webhooks: false, analytics: true, active: true },
        updatedAt: at(10),
      });
      await store.accounts.update(
        a.id,
        { name: 'Renamed', plan: { name: 'pro', maxPages: 7, brandingRemoval: false } },
        at(20),
      );
      const got = await store.accounts.get(a.id);
      expect(got).toMatchObject({ name: 'Renamed', updatedAt: at(20) });
      expect(got!.plan).toEqual({
        name: 'pro',
        maxChatbots: 0,
        maxPages: 7,
        webhooks: false,
        analytics: true,
        brandingRemoval: false,
        active: true,
      });
    });

    test('users: get, and owner() finds the owner, not a member', async () => {
      const a = account();
      await store.accounts.insert(a);
      expect(await store.users.owner(a.id)).toBeNull();
      const member = user(a.id, { role: 'member', name: 'Mia', createdAt: at(-5) });
      const owner = user(a.id, { role: 'owner' });
      await store.users.insert(member);
      await store.users.insert(owner);
      expect(await store.users.get(member.id)).toEqual(member);
      expect(await store.users.owner(a.id)).toEqual(owner);
      expect(await store.users.get('nobody')).toBeNull();
    });

    test('foreign keys hold: a user of a missing account is refused', async () => {
      await expect(store.users.insert(user('no-such-account'))).rejects.toThrow();
    });
  });

  describe('tokens', () => {
    test('insert, byHash and get (scoped to the account)', async () => {
      const { account: a, owner } = await tenant();
      const other = await tenant();
      const t = token(a, owner, { chatbotIds: ['c1', 'c2'] });
      await store.tokens.insert(t, `hash-${t.id}`);
      expect(await store.tokens.byHash(`hash-${t.id}`)).toEqual(t);
      expect(await store.tokens.get(a.id, t.id)).toEqual(t);
      expect(await store.tokens.get(other.account.id, t.id)).toBeNull();
      expect(await store.tokens.byHash('unknown')).toBeNull();
      const unrestricted = token(a, owner, { access: 'full', scopes: [] });
      await store.tokens.insert(unrestricted, `hash-${unrestricted.id}`);
      expect((await store.tokens.byHash(`hash-${unrestricted.id}`))!.chatbotIds).toBeNull();
    });

    test('a token hash is unique', async () => {
      const { account: a, owner } = await tenant();
      await store.tokens.insert(token(a, owner), 'same-hash');
      await expect(store.tokens.insert(token(a, owner), 'same-hash')).rejects.toThrow();
    });

    test('page: API tokens only, newest first, every token exactly once', async () => {
      const { account: a, owner } = await tenant();
      const other = await tenant();
      const tokens = Array.from({ length: 5 }, (_, i) => token(a, owner, { createdAt: at(i % 3) }));
      for (const t of tokens) await store.tokens.insert(t, `hash-${t.id}`);
      const legacy = token(a, owner, { kind: 'legacy', access: 'full', createdAt: at(99) });
      await store.tokens.insert(legacy, `hash-${legacy.id}`);
      await store.tokens.insert(token(other.account, other.owner), `hash-${newId()}`);

      const pages = await allPages((after) => store.tokens.page(a.id, { limit: 2, after }));
      expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
      expect(pages.flat().map((t) => t.id)).toEqual(newestFirst(tokens).map((t) => t.id));
      expect((await store.tokens.listAll(a.id)).map((t) => t.id)).toContain(legacy.id);
    });

    test('revoke keeps the first revocation time; touch records the last use', async () => {
      const { account: a, owner } = await tenant();
      const t = token(a, owner);
      await store.tokens.insert(t, `hash-${t.id}`);
      await store.tokens.touch(t.id, at(5));
      expect((await store.tokens.get(a.id, t.id))!.lastUsedAt).toBe(at(5));
      await store.tokens.revoke(t.id, at(6));
      await store.tokens.revoke(t.id, at(7));
      expect(await store.tokens.byHash(`hash-${t.id}`)).toEqual({ ...t, lastUsedAt: at(5), revokedAt: at(6) });
    });
  });

  describe('chatbots and icons', () => {
    test('insert and get round-trip nested settings', async () => {
      const { account: a, owner } = await tenant();
      const settings = {
        temperature: 0.35,
        topK: 3,
        hideWatermark: false,
        webhookUrl: null,
        localization: { en: { greeting: 'Hi 👋 — “quoted”', lines: ['a', 'b'] } },
      };
      const c = chatbot(a.id, owner.id, { title: 'Ünïcode', description: 'line\nbreak', settings });
      await store.chatbots.insert(c);
      expect(await store.chatbots.get(c.id)).toEqual(c);
      expect(await store.chatbots.get('missing')).toBeNull();
    });

    test('page: newest first, ties on created_at broken by id, no skips or repeats with inserts between pages', async () => {
      const { account: a, owner } = await tenant();
      const other = await tenant();
      // Four share one created_at, so the id alone orders them.
      const rows = [0, 1, 2, 2, 2, 2, 3, 4, 5].map((s) =>
        chatbot(a.id, owner.id, { createdAt: at(s), updatedAt: at(s) }),
      );
      for (const c of rows) await store.chatbots.insert(c);
      await store.chatbots.insert(chatbot(other.account.id, other.owner.id, { createdAt: at(3) }));

      const seen: string[] = [];
      const older: ChatbotRecord[] = [];
      let after: Page<ChatbotRecord>['next'] = null;
      let pages = 0;
      do {
        const page = await store.chatbots.page(a.id, { limit: 2, after }, null);
        seen.push(...page.items.map((c) => c.id));
        after = page.next;
        pages++;
        // Rows added while a client pages: newer ones land before the cursor (never shown),
        // older ones after it (shown once, at the end).
        if (pages <= 2) {
          await store.chatbots.insert(chatbot(a.id, owner.id, { createdAt: at(50 + pages) }));
          const old = chatbot(a.id, owner.id, { createdAt: at(-pages) });
          await store.chatbots.insert(old);
          older.push(old);
        }
      } while (after);
      expect(pages).toBeGreaterThan(2);
      expect(seen).toEqual(newestFirst([...rows, ...older]).map((c) => c.id));
      expect(await store.chatbots.count(a.id)).toBe(13);
    });

    test('page with `only`: just those chatbots; an empty list gives an empty page', async () => {
      const { account: a, owner } = await tenant();
      const other = await tenant();
      const rows = [1, 2, 3, 4].map((s) => chatbot(a.id, owner.id, { createdAt: at(s) }));
      for (const c of rows) await store.chatbots.insert(c);
      const foreign = chatbot(other.account.id, other.owner.id);
      await store.chatbots.insert(foreign);

      const only = [rows[0].id, rows[2].id, foreign.id];
      const pages = await allPages((after) => store.chatbots.page(a.id, { limit: 1, after }, only));
      expect(pages.flat().map((c) => c.id)).toEqual([rows[2].id, rows[0].id]);
      expect(await store.chatbots.page(a.id, { limit: 10, after: null }, [])).toEqual({ items: [], next: null });
      const all = await store.chatbots.page(a.id, { limit: 10, after: null }, null);
      expect(all.items.map((c) => c.id)).toEqual(newestFirst(rows).map((c) => c.id));
      expect(all.next).toBeNull();
    });

    test('count is a number on every dialect', async () => {
      const { account: a, owner } = await tenant();
      expect(await store.chatbots.count(a.id)).toBe(0);
      for (let i = 0; i < 3; i++) await store.chatbots.insert(chatbot(a.id, owner.id));
      // toBe compares with Object.is: PostgreSQL's count(*) arrives as the string '3' unless converted.
      expect(await store.chatbots.count(a.id)).toBe(3);
    });

    test('update changes only the given fields', async () => {
      const { account: a, owner } = await tenant();
      const c = chatbot(a.id, owner.id, { title: 'Old', description: 'Keep', settings: { topK: 2 } });
      await store.chatbots.insert(c);
      await store.chatbots.update(c.id, { title: 'New' }, at(9));
      expect(await store.chatbots.get(c.id)).toEqual({ ...c, title: 'New', updatedAt: at(9) });
      await store.chatbots.update(c.id, { settings: { topK: 4, nested: { ok: true } } }, at(10));
      expect(await store.chatbots.get(c.id)).toEqual({
        ...c,
        title: 'New',
        settings: { topK: 4, nested: { ok: true } },
        updatedAt: at(10),
      });
    });

    test('icon bytes round-trip exactly, NUL bytes and every byte value included', async () => {
      const { account: a, owner } = await tenant();
      const c = chatbot(a.id, owner.id);
      await store.chatbots.insert(c);
      const bytes = Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x0d, 0x0a]),
        Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
        Buffer.alloc(64),
      ]);
      const icon = {
        id: newId(),
        chatbotId: c.id,
        type: 'bubble',
        mime: 'image/png',
        size: bytes.length,
        createdAt: at(1),
      };
      await store.icons.insert(icon, bytes);
      const got = await store.icons.get(icon.id);
      expect(Buffer.isBuffer(got!.bytes)).toBe(true);
      expect(got!.bytes.equals(bytes)).toBe(true);
      expect(got).toEqual({ ...icon, bytes });
      expect(await store.icons.ofType(c.id, 'bubble')).toEqual([icon]);
      expect(await store.icons.ofType(c.id, 'avatar')).toEqual([]);
      await store.icons.delete([]);
      expect(await store.icons.get(icon.id)).not.toBeNull();
      await store.icons.delete([icon.id]);
      expect(await store.icons.get(icon.id)).toBeNull();
    });

    test('deleting a chatbot deletes its icons', async () => {
      const { account: a, owner } = await tenant();
      const c = chatbot(a.id, owner.id);
      const keep = chatbot(a.id, owner.id);
      await store.chatbots.insert(c);
      await store.chatbots.insert(keep);
      const icon = { id: newId(), chatbotId: c.id, type: 'avatar', mime: 'image/png', size: 1, createdAt: at(1) };
      const kept = { ...icon, id: newId(), chatbotId: keep.id };
      await store.icons.insert(icon, Buffer.from([0]));
      await store.icons.insert(kept, Buffer.from([1]));
      await store.chatbots.delete(c.id);
      expect(await store.chatbots.get(c.id)).toBeNull();
      expect(await store.icons.get(icon.id)).toBeNull();
      expect(await store.icons.get(kept.id)).not.toBeNull();
      expect(await store.chatbots.count(a.id)).toBe(1);
    });
  });

  if (dialect === 'postgres')
    test('ids sort bytewise, as on SQLite, whatever the database collation', async () => {
      // A database whose default collation is ICU English sorts 'a' before 'B'; keys must not.
      const name = `parley_coll_${newId()
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '')}`;
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      await admin.query(
        `create database ${name} template template0 locale_provider icu icu_locale 'en' locale 'C.UTF-8'`,
      );
      const url = new URL(POSTGRES_URL);
      url.pathname = `/${name}`;
      const other = openDatabase({ url: url.toString(), poolSize: 1 });
      try {
        await other.migrate();
        const s = createStore(other.db);
        const a = account();
        const owner = user(a.id);
        await s.accounts.insert(a);
        await s.users.insert(owner);
        const ids = ['B-1', 'a_1', 'a-2', 'Z9', '_x'];
        for (const id of ids) await s.chatbots.insert(chatbot(a.id, owner.id, { id }));
        const pages = await allPages((after) => s.chatbots.page(a.id, { limit: 2, after }, null));
        expect(pages.flat().map((c) => c.id)).toEqual([...ids].sort().reverse());
      } finally {
        await other.close();
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
    });

  describe('billing', () => {
    test('invoices page: the account only, newest first, fields intact', async () => {
      const { account: a } = await tenant();
      const other = await tenant();
      const invoice = (s: number, over: Partial<InvoiceRecord> = {}): InvoiceRecord => ({
        id: newId(),
        accountId: a.id,
        name: `Invoice ${s}`,
        amountCents: 1250 + s,
        currency: 'EUR',
        status: 'paid',
        periodStart: at(s),
        periodEnd: at(s + 1),
        url: `https://billing.example.com/${s}`,
        createdAt: at(s),
        ...over,
      });
      const rows = [invoice(1), invoice(2, { periodStart: null, periodEnd: null, url: null }), invoice(2), invoice(3)];
      for (const i of rows) await store.invoices.insert(i);
      await store.invoices.insert(invoice(4, { accountId: other.account.id }));
      const pages = await allPages((after) => store.invoices.page(a.id, { limit: 3, after }));
      expect(pages.map((p) => p.length)).toEqual([3, 1]);
      expect(pages.flat()).toEqual(newestFirst(rows));
      expect(await store.invoices.page(newId(), { limit: 3, after: null })).toEqual({ items: [], next: null });
    });

    test('usage: add upserts and increments; get is 0 when nothing was counted', async () => {
      const { account: a } = await tenant();
      expect(await store.usage.get(a.id, 'messages', '2025-01')).toBe(0);
      await store.usage.add(a.id, 'messages', '2025-01', 1);
      await store.usage.add(a.id, 'messages', '2025-01', 2);
      await store.usage.add(a.id, 'messages', '2025-02', 5);
      await store.usage.add(a.id, 'content_pages', 'all', 10);
      await store.usage.add(a.id, 'content_pages', 'all', -4);
      expect(await store.usage.get(a.id, 'messages', '2025-01')).toBe(3);
      expect(await store.usage.get(a.id, 'messages', '2025-02')).toBe(5);
      expect(await store.usage.get(a.id, 'content_pages', 'all')).toBe(6);
    });
  });

  describe('transactions', () => {
    test('an error inside transaction() leaves nothing written', async () => {
      const a = account();
      const owner = user(a.id);
      const c = chatbot(a.id, owner.id);
      const boom = new Error('boom');
      await expect(
        store.transaction(async (s) => {
          await s.accounts.insert(a);
          await s.users.insert(owner);
          await s.chatbots.insert(c);
          await s.usage.add(a.id, 'messages', 'all', 1);
          // Nested calls join the outer transaction.
          await s.transaction(async (inner) => inner.accounts.update(a.id, { name: 'inner' }, at(1)));
          expect(await s.chatbots.count(a.id)).toBe(1);
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await store.accounts.get(a.id)).toBeNull();
      expect(await store.users.get(owner.id)).toBeNull();
      expect(await store.chatbots.get(c.id)).toBeNull();
      expect((await store.accounts.list()).some((x) => x.id === a.id)).toBe(false);
    });

    test('a database error inside transaction() rolls back earlier writes too', async () => {
      const { account: a, owner } = await tenant();
      const c = chatbot(a.id, owner.id);
      await expect(
        store.transaction(async (s) => {
          await s.chatbots.insert(c);
          await s.chatbots.insert(c); // duplicate primary key
        }),
      ).rejects.toThrow();
      expect(await store.chatbots.get(c.id)).toBeNull();
    });

    test('a transaction that succeeds commits everything and returns its value', async () => {
      const a = account();
      const result = await store.transaction(async (s) => {
        await s.accounts.insert(a);
        await s.usage.add(a.id, 'messages', 'all', 2);
        return 'done';
      });
      expect(result).toBe('done');
      expect(await store.accounts.get(a.id)).toEqual(a);
      expect(await store.usage.get(a.id, 'messages', 'all')).toBe(2);
    });
  });
});

describeOnDialects(
  'the app on PostgreSQL',
  () => {
    test('creates and lists chatbots over HTTP', async () => {
      const t = await buildTestApp({ dialect: 'postgres' });
      try {
        expect(t.database.db.getExecutor().adapter).toBeInstanceOf(PostgresAdapter);
        const { token } = await t.token();
        const titles = ['First', 'Second', 'Third'];
        for (const title of titles) {
          const res = await t.call('POST', '/api/v2/chatbots', token, { title });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
        }
        const page1 = await t.call('GET', '/api/v2/chatbots?limit=2', token);
        expect(page1.status).toBe(200);
        expect(page1.body.data.chatbots.map((c: { title: string }) => c.title)).toEqual(['Third', 'Second']);
        expect(page1.body.data.pagination).toMatchObject({ limit: 2, hasNextPage: true });
        const page2 = await t.call(
          'GET',
          `/api/v2/chatbots?limit=2&cursor=${encodeURIComponent(page1.body.data.pagination.nextCursor)}`,
          token,
        );
        expect(page2.body.data.chatbots.map((c: { title: string }) => c.title)).toEqual(['First']);
        expect(page2.body.data.pagination).toMatchObject({ hasNextPage: false, nextCursor: null });
        const usage = await t.call('GET', '/api/v2/usage', token);
        expect(usage.body.data.usage).toMatchObject({ chatbots: { used: 3 } });
      } finally {
        await t.close();
      }
    });
  },
  { dialects: ['postgres'] },
);

test('each pending migration is announced as it starts, in order (a long one must not look hung)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-migrate-'));
  const fresh = openDatabase({ sqlitePath: join(dir, 'fresh.db') });
  try {
    const started: string[] = [];
    const applied = await migrateToLatest(fresh.db, 'sqlite', undefined, (name) => started.push(name));
    expect(applied).toEqual(Object.keys(migrations('sqlite')));
    expect(started).toEqual(applied);
  } finally {
    await fresh.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
