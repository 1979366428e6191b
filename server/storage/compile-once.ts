/**
 * kysely builds and compiles every query anew; for the lookups every request makes (the token,
 * the chatbot) that costs several times the lookup itself (bench/README.md, http). `compileOnce`
 * builds such a query once per database handle, with placeholder values, and afterwards only
 * binds fresh parameters, in the order the SQL binds them. A transaction is its own handle, so
 * it compiles its own copy (and, having no reader, runs inside the transaction).
 */
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { readerOf } from './dialects/sqlite/reader.js';
import { groupWriterOf } from './dialects/sqlite/writer.js';
import type { Database } from './tables.js';

export function compileOnce<R>(build: (db: Kysely<Database>) => Compilable<R>, options: { remember?: boolean } = {}) {
  const queryOf = compiler(build);
  /** The first row for these parameters, or undefined. */
  return async (db: Kysely<Database>, ...parameters: unknown[]): Promise<R | undefined> => {
    const query = queryOf(db, parameters);
    const writer = groupWriterOf(db);
    if (writer) return writer.prepare(query.sql).get(parameters) as R | undefined;
    // Outside a transaction on SQLite, the read-only connection answers synchronously; rows that
    // change with nearly every commit (a conversation) are not worth remembering.
    const reader = readerOf(db);
    if (reader)
      return options.remember === false
        ? reader.all<R>(query.sql, parameters)[0]
        : reader.get<R>(query.sql, parameters);
    const { rows } = await db.executeQuery<R>({ ...query, parameters });
    return rows[0];
  };
}

/** As `compileOnce`, for every row (the realtime gateway's reads after each change). */
export function compileOnceAll<R>(build: (db: Kysely<Database>) => Compilable<R>) {
  const queryOf = compiler(build);
  return async (db: Kysely<Database>, ...parameters: unknown[]): Promise<R[]> => {
    const query = queryOf(db, parameters);
    const writer = groupWriterOf(db);
    if (writer) return writer.prepare(query.sql).all(parameters) as R[];
    const reader = readerOf(db);
    if (reader) return reader.all<R>(query.sql, parameters);
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}

/**
 * As `compileOnce` for a write (run inside the caller's transaction): the statement's result
 * (affected rows). The SQL is compiled once per database handle, so a group of transactions
 * sharing one COMMIT compiles it once.
 */
export function compileOnceWrite(build: (db: Kysely<Database>) => Compilable<unknown>) {
  const queryOf = compiler(build);
  return async (db: Kysely<Database>, ...parameters: unknown[]): Promise<bigint> => {
    const query = queryOf(db, parameters);
    // In a group commit's transaction on SQLite: straight on the writer (dialects/sqlite/writer.ts).
    const writer = groupWriterOf(db);
    if (writer) return BigInt(writer.prepare(query.sql).run(parameters).changes);
    const result = await db.executeQuery({ ...query, parameters });
    return result.numAffectedRows ?? 0n;
  };
}

function compiler<R>(build: (db: Kysely<Database>) => Compilable<R>) {
  const compiled = new WeakMap<Kysely<Database>, CompiledQuery<R>>();
  return (db: Kysely<Database>, parameters: unknown[]): CompiledQuery<R> => {
    let query = compiled.get(db);
    if (!query) {
      query = build(db).compile();
      if (query.parameters.length !== parameters.length) {
        throw new Error(
          `compileOnce: the query binds ${query.parameters.length} parameters, ${parameters.length} given`,
        );
      }
      compiled.set(db, query);
    }
    return query;
  };
}
