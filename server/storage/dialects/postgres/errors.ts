/** What pg's errors mean, by SQLSTATE. */

/** unique_violation: a unique index (or primary key) refused the write. */
export const isUniqueViolation = (err: unknown) => (err as { code?: string } | null)?.code === '23505';

/** A server that was reached but refused us: bad password, no such role, no such database. */
const REFUSED = new Set(['28P01', '28000', '3D000']);
export const refusedConnection = (code: string | undefined) => REFUSED.has(code ?? '');
