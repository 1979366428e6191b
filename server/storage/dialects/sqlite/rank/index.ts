/**
 * Loads parley_bm25 (parley_rank.c, built at install by build.mjs) into a SQLite connection.
 * Optional by design: without it chunks.repository.ts ranks with FTS5's bm25(), which gives nearly
 * the same order (it counts the extra column in a row's length) but walks every phrase's rows on
 * each search (slow on large indexes), and
 * `rankExtension.loaded` says why for the start-up log.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type SQLite from 'better-sqlite3';
import { PROJECT_ROOT } from '../../../../paths.js';

/** Where build.mjs writes the library (keep in step with it). */
export const rankExtensionPath = () =>
  join(PROJECT_ROOT, 'build', process.platform === 'darwin' ? 'parley_rank.dylib' : 'parley_rank.so');

/** Whether the last connection opened got parley_bm25, and if not, why. */
export const rankExtension: { loaded: boolean; reason: string | null } = {
  loaded: false,
  reason: 'no SQLite connection opened yet',
};

export function loadRankExtension(sqlite: SQLite.Database): boolean {
  const path = rankExtensionPath();
  if (!existsSync(path)) {
    Object.assign(rankExtension, {
      loaded: false,
      reason: `${path} is missing (built by npm ci / npm run build:rank; needs a C compiler)`,
    });
    return false;
  }
  try {
    sqlite.loadExtension(path); // entry point from the file name: sqlite3_parleyrank_init
    Object.assign(rankExtension, { loaded: true, reason: null });
    return true;
  } catch (err) {
    Object.assign(rankExtension, { loaded: false, reason: `${path} did not load: ${(err as Error).message}` });
    return false;
  }
}
