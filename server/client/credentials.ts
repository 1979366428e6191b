/**
 * Where `login` keeps the token: `dir` is $XDG_CONFIG_HOME/parley (~/.config/parley without it,
 * config.ts loadClientConfig); credentials.json in it, the folder 0700 and the file 0600,
 * written whole (temporary file, then rename) so a crash never leaves half a token.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Credentials {
  server: string;
  accessToken: string;
  scope: string;
  savedAt: string;
}

export const credentialsPath = (dir: string) => join(dir, 'credentials.json');

export function saveCredentials(dir: string, credentials: Credentials): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = credentialsPath(dir);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  // The umask may have taken bits off the mode asked for, never added: set it exactly.
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
  return file;
}

export function loadCredentials(dir: string): Credentials | null {
  let text: string;
  try {
    text = readFileSync(credentialsPath(dir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<Credentials>;
  if (typeof parsed.server !== 'string' || typeof parsed.accessToken !== 'string')
    throw new Error(`${credentialsPath(dir)} is not a credentials file: run login again`);
  return {
    server: parsed.server,
    accessToken: parsed.accessToken,
    scope: parsed.scope ?? '',
    savedAt: parsed.savedAt ?? '',
  };
}

export function removeCredentials(dir: string): void {
  rmSync(credentialsPath(dir), { force: true });
}
