/**
 * The indexer under concurrency, on both dialects: items of one batch (and concurrent jobs) index
 * at once. Two of them with one key make one document; several new documents never overshoot the
 * plan's page quota.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newId, nowIso } from '../../../../server/domain/ids.js';
import { DocumentIndexer, type IndexInput } from '../../../../server/domain/knowledge/indexer.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';

describeOnDialects('DocumentIndexer on %s', (dialect) => {
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await buildTestApp({ dialect });
  });
  afterAll(() => t?.close());

  /** A new account and chatbot with one source; index inputs for it. */
  async function setup(maxPages: number) {
    const app = t!.app;
    const store = app.services.store;
    const { account, owner } = await app.services.accounts.create(`${newId()}@example.com`);
    await app.services.accounts.setPlan(account.id, { maxPages });
    const at = nowIso();
    const chatbotId = newId();
    await store.chatbots.insert({
      id: chatbotId,
      accountId: account.id,
      createdById: owner.id,
      title: 'Bot',
      description: '',
      settings: {},
      createdAt: at,
      updatedAt: at,
    });
    const sourceId = newId();
    await store.knowledge.sources.insert({
      id: sourceId,
      chatbotId,
      accountId: account.id,
      type: 'links',
      key: '',
      name: 'Links',
      config: {},
      credentials: null,
      status: 'ready',
      lastError: null,
      lastSyncAt: null,
      syncIntervalMinutes: null,
      nextSyncAt: null,
      createdAt: at,
      updatedAt: at,
    });
    const input = (key: string): IndexInput => ({
      accountId: account.id,
      maxPages,
      chatbotId,
      sourceId,
      key: `https://docs.example.com/${key}`,
      url: `https://docs.example.com/${key}`,
      doc: {
        title: key,
        kind: 'html',
        sections: [{ headingPath: [], text: `The page called ${key}, with a sentence of its own.` }],
      },
    });
    const documents = async () =>
      (await store.knowledge.documents.page(chatbotId, { limit: 100, after: null }, {})).items;
    return { accountId: account.id, input, documents, indexer: new DocumentIndexer(store) };
  }

  test('concurrent index() calls for one new key make one document and both succeed', async () => {
    const { input, documents, indexer } = await setup(100);
    const [a, b] = await Promise.all([indexer.index(input('shared')), indexer.index(input('shared'))]);
    expect(a.documentId).toBeTruthy();
    expect(b.documentId).toBe(a.documentId);
    expect([a.outcome, b.outcome].sort()).toEqual(['indexed', 'unchanged']);
    expect(await documents()).toHaveLength(1);
  });

  test('concurrent new documents stop exactly at the page quota', async () => {
    const { accountId, input, indexer } = await setup(2);
    const outcomes = await Promise.all(['a', 'b', 'c', 'd'].map((k) => indexer.index(input(k))));
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['indexed', 'indexed', 'quota', 'quota']);
    expect(await t!.app.services.store.knowledge.documents.countIndexed(accountId)).toBe(2);
  });
});
