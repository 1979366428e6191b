/**
 * kysely's SQLite driver prepares every query anew, and compiling the SQL costs more than
 * running a primary-key lookup. Queries are built
 * from a few fixed shapes, so their statements are kept by SQL text, in a bounded LRU.
 * Reusing a statement is safe here: the driver runs one query at a time on its one connection
 * (a streamed query holds that lock until it ends), and SQLite re-prepares a statement by
 * itself when a migration changes the schema.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

export function withStatementCache(database: Database, max = 500): SqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement) {
        // Most recently used goes last; the first key is the one to drop.
        statements.delete(sql);
      } else {
        statement = database.prepare(sql);
        if (statements.size >= max) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}
