/**
 * Fixtures of the answer-engine tests: a migrated temporary SQLite database with a chatbot,
 * fastify's Markdown docs ingested through the real pipeline (extract -> DocumentIndexer ->
 * Store), the owner's resources written into their tables, and small in-memory ports for the
 * tests that only exercise a provider.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import type { FollowUp } from '../../../../server/domain/conversations/ports.js';
import type {
  AnswerContextStore,
  CustomResponseContext,
  InstructionContext,
  PersonaContext,
} from '../../../../server/domain/answers/ports.js';
import type { PassageSearch } from '../../../../server/domain/answers/engine.js';
import { newId } from '../../../../server/domain/ids.js';
import { extract } from '../../../../server/adapters/extraction/index.js';
import { DocumentIndexer } from '../../../../server/domain/knowledge/indexer.js';
import type { SearchHit } from '../../../../server/domain/knowledge/ports.js';
import type { Store } from '../../../../server/domain/ports.js';
import { openDatabase, type DatabaseHandle } from '../../../../server/storage/dialects/index.js';
import { createStore } from '../../../../server/storage/store.js';
import type { Database } from '../../../../server/storage/tables.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
export const FASTIFY_DOCS = join(ROOT, 'node_modules', 'fastify', 'docs');
const AT = '2025-01-01T00:00:00.000Z';

export interface AnswersDb {
  database: DatabaseHandle;
  db: Kysely<Database>;
  store: Store;
  chatbotId: string;
  accountId: string;
  close(): Promise<void>;
}

export async function openAnswersDb(): Promise<AnswersDb> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-answers-'));
  const database = openDatabase({ sqlitePath: join(dir, 'answers.db') });
  await database.migrate();
  const store = createStore(database.db);
  const accountId = newId();
  const userId = newId();
  const chatbotId = newId();
  const plan = {
    name: 'test',
    maxChatbots: 5,
    maxPages: 10_000,
    webhooks: false,
    analytics: false,
    brandingRemoval: false,
    active: true,
  };
  await store.accounts.insert({ id: accountId, name: 'Acme', plan, createdAt: AT, updatedAt: AT });
  await store.users.insert({
    id: userId,
    accountId,
    email: `${userId}@example.com`,
    name: null,
    role: 'owner',
    createdAt: AT,
  });
  await store.chatbots.insert({
    id: chatbotId,
    accountId,
    createdById: userId,
    title: 'Docs',
    description: '',
    settings: {},
    createdAt: AT,
    updatedAt: AT,
  });
  return {
    database,
    db: database.db,
    store,
    chatbotId,
    accountId,
    async close() {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** fastify's Reference/ and Guides/ Markdown, ingested for the chatbot; returns document id -> "Reference/Hooks.md". */
/** `vectors`: a hybrid retriever writing the chunks' vectors too (bench/eval/tune-embeddings.ts). */
export async function ingestFastifyDocs(
  t: AnswersDb,
  vectors?: ConstructorParameters<typeof DocumentIndexer>[1],
): Promise<Map<string, string>> {
  const sourceId = newId();
  await t.store.knowledge.sources.insert({
    id: sourceId,
    chatbotId: t.chatbotId,
    accountId: t.accountId,
    type: 'files',
    key: '',
    name: 'fastify docs',
    config: {},
    credentials: null,
    status: 'ready',
    lastError: null,
    lastSyncAt: null,
    syncIntervalMinutes: null,
    nextSyncAt: null,
    createdAt: AT,
    updatedAt: AT,
  });
  const indexer = new DocumentIndexer(t.store, vectors);
  const byDocument = new Map<string, string>();
  for (const dir of ['Reference', 'Guides']) {
    for (const name of readdirSync(join(FASTIFY_DOCS, dir))
      .filter((f) => f.endsWith('.md'))
      .sort()) {
      const file = `${dir}/${name}`;
      const url = `https://fastify.dev/docs/latest/${file.replace(/\.md$/, '/')}`;
      const doc = await extract({
        bytes: readFileSync(join(FASTIFY_DOCS, file)),
        kind: 'markdown',
        filename: name,
        url,
      });
      const { documentId } = await indexer.index({
        accountId: t.accountId,
        maxPages: 10_000,
        chatbotId: t.chatbotId,
        sourceId,
        key: url,
        url,
        doc,
      });
      if (documentId) byDocument.set(documentId, file);
    }
  }
  return byDocument;
}

/** Owner resources written straight into their tables (their CRUD routes are tested elsewhere). */
export const resources = (t: AnswersDb) => ({
  async instruction(instructions: string, temperature: number | null = null) {
    const id = newId();
    await t.db
      .insertInto('instructions')
      .values({
        id,
        chatbot_id: t.chatbotId,
        title: 'Instruction',
        description: '',
        instructions,
        temperature,
        created_at: AT,
        updated_at: AT,
      })
      .execute();
    return id;
  },
  async persona(instructions: string) {
    const id = newId();
    await t.db
      .insertInto('personas')
      .values({
        id,
        chatbot_id: t.chatbotId,
        title: 'Persona',
        description: '',
        instructions,
        temperature: null,
        created_at: AT,
        updated_at: AT,
      })
      .execute();
    return id;
  },
  async customResponse(question: string, answer: string) {
    const id = newId();
    await t.db
      .insertInto('custom_responses')
      .values({ id, chatbot_id: t.chatbotId, question, answer, created_at: AT, updated_at: AT })
      .execute();
    return id;
  },
  async followUp(title: string, description: string, isEscalationPrompt = false, position = 0) {
    const id = newId();
    await t.db
      .insertInto('followups')
      .values({
        id,
        chatbot_id: t.chatbotId,
        title,
        description,
        link: null,
        is_escalation_prompt: isEscalationPrompt ? 1 : 0,
        position,
        created_at: AT,
        updated_at: AT,
      })
      .execute();
    return id;
  },
});

/** An in-memory AnswerContextStore. */
export function memoryContext(
  over: {
    instructions?: InstructionContext[];
    personas?: PersonaContext[];
    customResponses?: CustomResponseContext[];
    followUps?: FollowUp[];
  } = {},
): AnswerContextStore {
  return {
    instruction: async (_c, id) => over.instructions?.find((i) => i.id === id) ?? null,
    persona: async (_c, id) => over.personas?.find((p) => p.id === id) ?? null,
    customResponses: async () => over.customResponses ?? [],
    followUps: async () => over.followUps ?? [],
  };
}

let chunkId = 1;
/** A hit as retrieval returns it. */
export function hit(over: Partial<SearchHit> & { text: string }): SearchHit {
  const url = over.url === undefined ? 'https://docs.example.com/hooks' : over.url;
  return {
    chunkId: chunkId++,
    documentId: over.documentId ?? newId(),
    title: over.title ?? 'Hooks',
    url,
    headingPath: over.headingPath ?? ['Hooks'],
    text: over.text,
    location: over.location ?? {
      url,
      headingPath: over.headingPath ?? ['Hooks'],
      textFragment: encodeURIComponent(over.text.slice(0, 30)),
    },
    score: over.score ?? 1,
  };
}

/** Retrieval that always returns these hits (at most k). */
export const fixedRetriever = (hits: SearchHit[]): PassageSearch => ({ search: async (_c, _q, k) => hits.slice(0, k) });
