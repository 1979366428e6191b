/** What better-sqlite3's errors mean, by code and message. */

/** A unique index (or primary key) refused the write. */
export const isUniqueViolation = (err: unknown) => /UNIQUE constraint failed/i.test(String((err as Error)?.message));

/** A file SQLite cannot open, write or read as a database. */
export const cannotOpen = (code: string | undefined, message: string) =>
  code === 'SQLITE_CANTOPEN' ||
  code === 'SQLITE_READONLY' ||
  code === 'SQLITE_NOTADB' ||
  /unable to open database/.test(message);
