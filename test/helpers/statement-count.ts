/**
 * Counts the SQL statements this process sends, at the drivers themselves (pg's `Client.query`,
 * better-sqlite3's statement runs and `exec`), so the statements kysely never sees (the SQLite
 * group commit's writer, the read-only connection) are counted too. For cost contracts: how many
 * statements one request or frame costs, never how long they take.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';

export interface StatementLog {
  /** The SQL of every statement sent since the log started (or was cleared), in order. */
  readonly statements: string[];
  clear(): void;
  /** Restores the drivers. */
  stop(): void;
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

export function logStatements(): StatementLog {
  const statements: string[] = [];
  const restores: Array<() => void> = [];
  const wrap = (target: Record<string, unknown>, name: string, sqlOf: (self: unknown, args: unknown[]) => string) => {
    const original = target[name] as Method;
    target[name] = function (this: unknown, ...args: unknown[]) {
      statements.push(sqlOf(this, args));
      return original.apply(this, args);
    };
    restores.push(() => (target[name] = original));
  };
  const pgProto = pg.Client.prototype as unknown as Record<string, unknown>;
  wrap(pgProto, 'query', (_, [q]) => (typeof q === 'string' ? q : String((q as { text?: string })?.text)));
  // better-sqlite3 keeps its Statement class to itself: reach its prototype through one statement.
  const scratch = new SQLite(':memory:');
  const statementProto = Object.getPrototypeOf(scratch.prepare('select 1')) as Record<string, unknown>;
  scratch.close();
  for (const name of ['run', 'get', 'all', 'iterate'])
    wrap(statementProto, name, (self) => (self as { source: string }).source);
  wrap(SQLite.prototype as unknown as Record<string, unknown>, 'exec', (_, [sql]) => String(sql));
  return {
    statements,
    clear: () => void statements.splice(0),
    stop: () => restores.reverse().forEach((r) => r()),
  };
}

/** A statement's first words, for lists a person reads (`insert into "messages"`, `select … from "conversations"`). */
export function shortSql(sql: string): string {
  const s = sql.replace(/\s+/g, ' ').trim();
  const table = /\b(?:from|into|update)\s+("?[\w.]+"?)/i.exec(s)?.[1] ?? '';
  return `${s.split(' ')[0].toLowerCase()} ${table}`.trim();
}
