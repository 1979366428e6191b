/**
 * Chunk vectors of one embedding space (model + dimensions), for hybrid retrieval: the dialect's
 * index (dialects/sqlite/vector-index.ts, dialects/postgres/vector-index.ts) once the dimensions
 * are sane.
 */
import type { Kysely } from 'kysely';
import type { VectorIndexPort } from '../domain/knowledge/ports.js';
import type { Dialect } from './dialects/dialect.js';
import type { Database } from './tables.js';

export interface VectorSpace {
  model: string;
  dimensions: number;
}

/** Chunk vectors of one embedding space (store.vectors): the dialect's index, once the dimensions are sane. */
export function vectorIndex(
  db: Kysely<Database>,
  dialect: Dialect,
  { model, dimensions }: VectorSpace,
): VectorIndexPort {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 8192) {
    throw new Error(`Embedding dimensions must be a whole number from 1 to 8192; got ${dimensions}`);
  }
  return dialect.vectorIndex(db, model, dimensions);
}
