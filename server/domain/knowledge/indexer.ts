/**
 * Turns one extracted document into a stored, indexed document: the content hash decides
 * whether anything changed (an unchanged page keeps its chunks), the plan's page quota is
 * checked for documents that would newly count, and the chunks replace the old ones (their
 * index entries and vectors with them) in one transaction.
 */
import { createHash } from 'node:crypto';
import { newId, nowIso } from '../ids.js';
import type { Store } from '../ports.js';
import { chunkDocument } from './chunk.js';
import type { ExtractedDocument } from './documents.js';
import type { ChunkInput } from './ports.js';
import { chunkQuestions } from './chunk-questions.js';

export interface VectorHook {
  /** Embeds and stores vectors of the given chunks (called after they are committed). */
  index(chatbotId: string, chunks: { id: number; text: string }[]): Promise<void>;
}

export type IndexOutcome = 'indexed' | 'unchanged' | 'quota';

export interface IndexInput {
  accountId: string;
  maxPages: number;
  chatbotId: string;
  sourceId: string;
  key: string;
  url: string | null;
  doc: ExtractedDocument;
}

export function contentHash(doc: ExtractedDocument): string {
  const h = createHash('sha256').update(doc.title).update('\u0000');
  for (const s of doc.sections) h.update(s.headingPath.join('\u0001')).update('\u0000').update(s.text).update('\u0000');
  return h.digest('hex');
}

export class DocumentIndexer {
  /** Per account, the tail of the writes that add to its page count (one process; see index()). */
  private readonly accountLocks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: Store,
    private readonly vectors?: VectorHook,
  ) {}

  async index(input: IndexInput): Promise<{ outcome: IndexOutcome; documentId: string | null }> {
    try {
      return await this.indexOnce(input);
    } catch (err) {
      // Two URLs of one page (a canonical link, query variants) fetched in one batch, or two jobs,
      // may both find no document under the key and both insert it: the unique key refuses the
      // second, which then finds the first one's document and updates it (or leaves it unchanged).
      if (await this.store.knowledge.documents.byKey(input.chatbotId, input.key)) return this.indexOnce(input);
      throw err;
    }
  }

  private async indexOnce(input: IndexInput): Promise<{ outcome: IndexOutcome; documentId: string | null }> {
    const hash = contentHash(input.doc);
    const title = (input.doc.title || input.url || 'Untitled').slice(0, 500);
    const existing = await this.store.knowledge.documents.byKey(input.chatbotId, input.key);
    if (existing && existing.status === 'indexed' && existing.contentHash === hash) {
      if (existing.sourceId !== input.sourceId || existing.title !== title) {
        await this.store.knowledge.documents.update(existing.id, {
          sourceId: input.sourceId,
          title,
          updatedAt: nowIso(),
        });
      }
      return { outcome: 'unchanged', documentId: existing.id };
    }
    const chunks: ChunkInput[] = chunkDocument(input.doc).map((c) => ({
      index: c.index,
      title,
      headingPath: c.headingPath,
      text: c.text,
      tokenCount: c.tokenCount,
      location: { url: input.url, headingPath: c.headingPath, ...c.location },
      questions: chunkQuestions({ title, headingPath: c.headingPath, text: c.text }),
    }));
    const chars = input.doc.sections.reduce((n, s) => n + s.text.length, 0);
    const at = nowIso();
    const documentId = existing?.id ?? newId();
    const write = () =>
      this.store.transaction(async (s) => {
        const fields = {
          sourceId: input.sourceId,
          url: input.url,
          title,
          kind: input.doc.kind,
          status: 'indexed' as const,
          contentHash: hash,
          chars,
          chunkCount: chunks.length,
          error: null,
          updatedAt: at,
        };
        if (existing) await s.knowledge.documents.update(documentId, fields);
        else
          await s.knowledge.documents.insert({
            id: documentId,
            chatbotId: input.chatbotId,
            key: input.key,
            createdAt: at,
            ...fields,
          });
        return s.knowledge.chunks.replace(documentId, input.chatbotId, chunks);
      });
    let ids: number[];
    if (existing?.status === 'indexed') {
      ids = await write();
    } else {
      // A document that newly counts against the page quota: count and write under the account's
      // lock, or the items of a batch (and concurrent jobs) all pass the same count and overshoot.
      const written = await this.underAccountLock(input.accountId, async () => {
        if ((await this.store.knowledge.documents.countIndexed(input.accountId)) >= input.maxPages) return null;
        return write();
      });
      if (written === null) return { outcome: 'quota', documentId: existing?.id ?? null };
      ids = written;
    }
    if (this.vectors && ids.length) {
      await this.vectors.index(
        input.chatbotId,
        ids.map((id, i) => ({ id, text: `${title}\n${chunks[i].headingPath.join(' > ')}\n${chunks[i].text}` })),
      );
    }
    return { outcome: 'indexed', documentId };
  }

  /** Runs `fn` after every earlier call for the same account has settled. */
  private underAccountLock<T>(accountId: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.accountLocks.get(accountId) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    this.accountLocks.set(accountId, tail);
    void tail.then(() => {
      if (this.accountLocks.get(accountId) === tail) this.accountLocks.delete(accountId);
    });
    return run;
  }

  /**
   * Records a URL that could not be indexed, so the owner sees it in the document list: `failed`,
   * or `skipped` when it was readable but not taken in (the page quota was used up).
   */
  async recordFailure(
    input: Omit<IndexInput, 'doc' | 'accountId' | 'maxPages'> & {
      title: string;
      kind: string;
      error: string;
      status?: 'failed' | 'skipped';
    },
  ) {
    const existing = await this.store.knowledge.documents.byKey(input.chatbotId, input.key);
    const at = nowIso();
    if (existing) {
      // A page that was indexed keeps its last good content; only the error is noted.
      await this.store.knowledge.documents.update(existing.id, { error: input.error.slice(0, 1000), updatedAt: at });
      return;
    }
    await this.store.knowledge.documents.insert({
      id: newId(),
      chatbotId: input.chatbotId,
      sourceId: input.sourceId,
      key: input.key,
      url: input.url,
      title: input.title.slice(0, 500),
      kind: input.kind,
      status: input.status ?? 'failed',
      contentHash: null,
      chars: 0,
      chunkCount: 0,
      error: input.error.slice(0, 1000),
      createdAt: at,
      updatedAt: at,
    });
  }
}
