/**
 * The KnowledgeStore port over one kysely handle: sources, documents, chunks (and their full-text
 * index), ingest jobs with their items (the durable crawl frontier), uploaded blobs and custom
 * contents, each in its own repository file. Every repository works on `db` as given, so a Store
 * built on a transaction stays inside it.
 */
import type { Kysely } from 'kysely';
import type { KnowledgeStore } from '../domain/knowledge/ports.js';
import { blobsRepository } from './blobs.repository.js';
import { chunksRepository } from './chunks.repository.js';
import { customContentsRepository } from './custom-contents.repository.js';
import type { Dialect } from './dialects/dialect.js';
import { documentsRepository } from './documents.repository.js';
import { ingestRepository } from './ingest.repository.js';
import type { Database } from './tables.js';
import { sourcesRepository } from './sources.repository.js';

/** The whole KnowledgeStore over one kysely handle (the database or a transaction). */
export function createKnowledgeStore(db: Kysely<Database>, dialect: Dialect): KnowledgeStore {
  return {
    sources: sourcesRepository(db),
    documents: documentsRepository(db),
    chunks: chunksRepository(db, dialect),
    ingest: ingestRepository(db, dialect),
    blobs: blobsRepository(db),
    customContents: customContentsRepository(db),
  };
}
