/**
 * Chunks and their lexical index. The index follows the table by itself (SQLite: FTS5 external
 * content kept by triggers; PostgreSQL: a generated tsvector column), so replacing or deleting
 * chunks is plain SQL on `chunks`. The search statement is the dialect's (dialects/).
 */
import type { Kysely } from 'kysely';
import type { ChunkLocation, DocumentChunk, KnowledgeStore, SearchHit } from '../domain/knowledge/ports.js';
import type { ChunkRow, Dialect } from './dialects/dialect.js';
import { searchTerms } from './search-terms.js';
import type { Database } from './tables.js';

const BATCH = 500;
export const MAX_K = 1000;

function toHit(r: ChunkRow): SearchHit {
  const location = JSON.parse(r.location) as ChunkLocation;
  return {
    chunkId: Number(r.id),
    documentId: r.document_id,
    title: r.title,
    url: location.url ?? null,
    headingPath: Array.isArray(location.headingPath) ? location.headingPath : r.heading ? r.heading.split(' > ') : [],
    text: r.text,
    location,
    score: Number(r.score ?? 0),
  };
}

const clampK = (k: number) => Math.max(0, Math.min(MAX_K, Math.floor(Number.isFinite(k) ? k : 0)));

export const chunksRepository = (db: Kysely<Database>, dialect: Dialect): KnowledgeStore['chunks'] => {
  const atomically = <T>(fn: (trx: Kysely<Database>) => Promise<T>) =>
    db.isTransaction ? fn(db) : db.transaction().execute(fn);

  const search = dialect.chunkSearch(db);

  return {
    replace(documentId, chatbotId, chunks) {
      return atomically(async (trx) => {
        // Deleting the rows deletes their index entries (trigger / generated column) and vectors.
        await trx.deleteFrom('chunks').where('document_id', '=', documentId).execute();
        const ids: number[] = [];
        for (let i = 0; i < chunks.length; i += BATCH) {
          const rows = chunks.slice(i, i + BATCH).map((c) => ({
            document_id: documentId,
            chatbot_id: chatbotId,
            idx: c.index,
            title: c.title,
            heading: c.headingPath.join(' > '),
            text: c.text,
            location: JSON.stringify(c.location),
            token_count: c.tokenCount,
            ...dialect.chunkColumns(c),
          }));
          const inserted = await trx.insertInto('chunks').values(rows).returning('id').execute();
          // Ids are assigned in VALUES order in both dialects; sorting makes that explicit.
          const batchIds = inserted.map((r) => Number(r.id)).sort((a, b) => a - b);
          ids.push(...batchIds);
          const questions = chunks
            .slice(i, i + BATCH)
            .flatMap((c, j) =>
              c.questions?.length
                ? [{ chunk_id: batchIds[j], chatbot_id: chatbotId, questions: JSON.stringify(c.questions) }]
                : [],
            );
          if (questions.length) await trx.insertInto('chunk_questions').values(questions).execute();
        }
        await trx.updateTable('documents').set({ chunk_count: chunks.length }).where('id', '=', documentId).execute();
        return ids;
      });
    },

    async searchLexical(chatbotId, query, k) {
      const limit = clampK(k);
      const terms = searchTerms(query);
      if (!terms.length || !limit) return [];
      return (await search(chatbotId, query, terms, limit)).map(toHit);
    },

    async byIds(ids) {
      const wanted = [...new Set(ids.filter((id) => Number.isInteger(id)))];
      if (!wanted.length) return [];
      const found = new Map<number, SearchHit>();
      for (let i = 0; i < wanted.length; i += BATCH) {
        const rows = await db
          .selectFrom('chunks')
          .select(['id', 'document_id', 'title', 'heading', 'text', 'location'])
          .where('id', 'in', wanted.slice(i, i + BATCH))
          .execute();
        for (const r of rows) found.set(Number(r.id), toHit(r));
      }
      return wanted.flatMap((id) => found.get(id) ?? []);
    },

    async ofDocument(documentId, fromIndex, limit) {
      const rows = await db
        .selectFrom('chunks')
        .select(['idx', 'heading', 'text', 'location', 'token_count'])
        .where('document_id', '=', documentId)
        .where('idx', '>=', fromIndex)
        .orderBy('idx')
        .limit(limit)
        .execute();
      return rows.map((r): DocumentChunk => {
        const location = JSON.parse(r.location) as ChunkLocation;
        return {
          index: Number(r.idx),
          headingPath: Array.isArray(location.headingPath)
            ? location.headingPath
            : r.heading
              ? r.heading.split(' > ')
              : [],
          text: r.text,
          location,
          tokenCount: Number(r.token_count),
        };
      });
    },

    async count(chatbotId) {
      const row = await db
        .selectFrom('chunks')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('chatbot_id', '=', chatbotId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
};

/** Kept for the callers that weighed the search with it. */
export { WEIGHTS } from './search-terms.js';
