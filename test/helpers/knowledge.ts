/**
 * Small builders for knowledge fixtures (chatbot, source, document, chunks) written through the
 * real Store (open the database with database.ts).
 */
import { newId } from '../../server/domain/ids.js';
import type { ChunkInput, DocumentRecord, SourceRecord } from '../../server/domain/knowledge/ports.js';
import type { Store } from '../../server/domain/ports.js';

const T0 = Date.UTC(2025, 0, 1);
/** `at(n)`: n seconds after a fixed instant, ISO-8601 UTC. */
export const at = (n: number) => new Date(T0 + n * 1000).toISOString();

/** A fresh account, owner and chatbot; returns the chatbot's and the account's ids. */
export async function newChatbot(store: Store): Promise<{ chatbotId: string; accountId: string }> {
  const accountId = newId();
  const userId = newId();
  await store.accounts.insert({
    id: accountId,
    name: 'Acme',
    plan: {
      name: 'test',
      maxChatbots: 5,
      maxPages: 1000,
      webhooks: false,
      analytics: false,
      brandingRemoval: false,
      active: true,
    },
    createdAt: at(0),
    updatedAt: at(0),
  });
  await store.users.insert({
    id: userId,
    accountId,
    email: `${newId()}@example.com`,
    name: null,
    role: 'owner',
    createdAt: at(0),
  });
  const chatbotId = newId();
  await store.chatbots.insert({
    id: chatbotId,
    accountId,
    createdById: userId,
    title: 'Bot',
    description: '',
    settings: {},
    createdAt: at(0),
    updatedAt: at(0),
  });
  return { chatbotId, accountId };
}

export function sourceRecord(chatbotId: string, accountId: string, over: Partial<SourceRecord> = {}): SourceRecord {
  return {
    id: newId(),
    chatbotId,
    accountId,
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
    createdAt: at(0),
    updatedAt: at(0),
    ...over,
  };
}

export function documentRecord(
  chatbotId: string,
  sourceId: string,
  over: Partial<DocumentRecord> = {},
): DocumentRecord {
  const id = newId();
  return {
    id,
    chatbotId,
    sourceId,
    key: `https://docs.example.com/${id}`,
    url: `https://docs.example.com/${id}`,
    title: 'Doc',
    kind: 'html',
    status: 'indexed',
    contentHash: null,
    chars: 0,
    chunkCount: 0,
    error: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...over,
  };
}

/** Chunks of one document from texts, with a location that round-trips. */
export function chunkInputs(
  title: string,
  url: string | null,
  parts: { heading?: string[]; text: string; page?: number }[],
): ChunkInput[] {
  return parts.map((p, index) => ({
    index,
    title,
    headingPath: p.heading ?? [],
    text: p.text,
    tokenCount: p.text.split(/\s+/).length,
    location: {
      url,
      headingPath: p.heading ?? [],
      textFragment: p.text.split(/\s+/).slice(0, 6).join(' '),
      ...(p.page !== undefined ? { page: p.page } : {}),
    },
  }));
}

/** Stores a source + document + chunks for a chatbot; returns the document and its chunk ids. */
export async function addDocument(
  store: Store,
  chatbot: { chatbotId: string; accountId: string },
  title: string,
  parts: { heading?: string[]; text: string; page?: number }[],
  over: Partial<DocumentRecord> = {},
): Promise<{ doc: DocumentRecord; chunkIds: number[]; chunks: ChunkInput[] }> {
  let source = await store.knowledge.sources.byKey(chatbot.chatbotId, 'links', '');
  if (!source) {
    source = sourceRecord(chatbot.chatbotId, chatbot.accountId);
    await store.knowledge.sources.insert(source);
  }
  const doc = documentRecord(chatbot.chatbotId, source.id, { title, ...over });
  await store.knowledge.documents.insert(doc);
  const chunks = chunkInputs(title, doc.url, parts);
  const chunkIds = await store.knowledge.chunks.replace(doc.id, chatbot.chatbotId, chunks);
  return { doc, chunkIds, chunks };
}

/** Strings a visitor may type that mean something to FTS5 or to_tsquery. */
export const HOSTILE_QUERIES = [
  '',
  '   ',
  '"',
  '"unbalanced quote',
  "it's o'reilly's",
  '*',
  'plug*',
  'NEAR(plugin hook, 3)',
  'plugin NEAR hook',
  '-plugin',
  'title:plugin',
  'heading : plugin',
  '(plugin OR',
  ')) AND ((',
  'plugin AND NOT hook',
  '^plugin',
  'plugin | hook & !route',
  "plugin <-> hook:* 'x'",
  '\\ \\" \u0000 \u200b',
  '{"$gt": ""}',
  "'; drop table chunks; --",
  'the of and to a in is',
  '🙂🚀',
  '日本語のプラグイン',
  'café naïve Ünïcödé',
  'x'.repeat(10_000),
  Array.from({ length: 500 }, (_, i) => `word${i}`).join(' '),
];
