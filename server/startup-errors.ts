/**
 * A failure while starting (the server or a CLI command) as one line that says what to change,
 * instead of a stack trace: a port in use, a HOST that does not resolve, a data directory that
 * cannot be written, a database that cannot be reached. Unknown failures keep their message.
 */
import type { Config } from './config.js';
import { openFailureOf } from './storage/dialects/open-failure.js';

interface SystemError extends Error {
  code?: string;
  syscall?: string;
  address?: string;
  port?: number;
  path?: string;
  hostname?: string;
  errors?: SystemError[];
}

/** postgres://user:secret@host:5432/db -> host:5432/db (never the password). */
function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

/** `command`: what the operator ran, for the advice on a busy port (`PORT=3001 npm start`). */
export function startupFailure(
  error: unknown,
  config?: Pick<Config, 'port' | 'host' | 'databaseUrl' | 'sqlitePath' | 'dataDir'>,
  command = 'npm start',
): string {
  const err = (error ?? {}) as SystemError;
  // Connecting to "localhost" tries ::1 and 127.0.0.1; node reports both in an AggregateError.
  const code = err.code ?? err.errors?.[0]?.code;
  const message = err.message || err.errors?.[0]?.message || String(error);
  if (err.syscall === 'listen' || (err.syscall === 'getaddrinfo' && config && err.hostname === config.host)) {
    const port = err.port ?? config?.port;
    const host = config?.host ?? err.address;
    if (code === 'EADDRINUSE')
      return `Port ${port} is already in use on ${host} (another Parley or another program): stop it or pick another port, e.g. PORT=${Number(port) + 1} ${command}`;
    if (code === 'EACCES')
      return `Not allowed to listen on port ${port}: ports below 1024 need privileges; choose PORT 1024 or above`;
    if (code === 'EADDRNOTAVAIL')
      return `HOST "${host}" is not an address of this machine: use 0.0.0.0 (every interface), 127.0.0.1 or one of its addresses`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      return `HOST "${host}" does not resolve to an address: use 0.0.0.0 (every interface), 127.0.0.1 or a name that resolves`;
  }
  if (
    config?.databaseUrl &&
    ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET'].includes(code ?? '')
  ) {
    return `Cannot reach the database at ${where(config.databaseUrl)} (${code}): is PostgreSQL running there? Check DATABASE_URL`;
  }
  if (config?.databaseUrl && openFailureOf(code, message) === 'refused') {
    return `The database at ${where(config.databaseUrl)} refused the connection: ${message}. Check DATABASE_URL`;
  }
  if (['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOENT', 'EEXIST', 'EISDIR'].includes(code ?? '') && err.path) {
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'a file is in the way'
        : code === 'ENOENT'
          ? 'a parent folder is missing'
          : 'permission denied';
    return `Cannot write ${err.path} (${why}, ${code}): DATA_DIR must be a directory this user can write`;
  }
  if (openFailureOf(code, message) === 'cannot-open') {
    return `Cannot open the SQLite database${config ? ` at ${config.sqlitePath}` : ''}: ${message}. DATA_DIR must be a directory this user can write`;
  }
  return message;
}
