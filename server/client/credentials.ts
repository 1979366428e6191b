/**
 * Where `login` keeps the token: $XDG_CONFIG_HOME/parley/credentials.json (~/.config/parley
 * without it), the folder 0700 and the file 0600, written whole (temporary file, then rename) so
 * a crash never leaves half a token.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

export interface Credentials {
  server: string;
  accessToken: string;
  scope: string;
  savedAt: string;
}

/** The XDG base directory rule: a relative XDG_CONFIG_HOME is ignored. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.config'), 'parley');
}

export const credentialsPath = (env: NodeJS.ProcessEnv = process.env) => join(configDir(env), 'credentials.json');

export function saveCredentials(credentials: Credentials, env: NodeJS.ProcessEnv = process.env): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = credentialsPath(env);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  // The umask may have taken bits off the mode asked for, never added: set it exactly.
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
  return file;
}

export function loadCredentials(env: NodeJS.ProcessEnv = process.env): Credentials | null {
  let text: string;
  try {
    text = readFileSync(credentialsPath(env), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<Credentials>;
  if (typeof parsed.server !== 'string' || typeof parsed.accessToken !== 'string') throw new Error(`${credentialsPath(env)} is not a credentials file: run login again`);
  return { server: parsed.server, accessToken: parsed.accessToken, scope: parsed.scope ?? '', savedAt: parsed.savedAt ?? '' };
}

export function removeCredentials(env: NodeJS.ProcessEnv = process.env): void {
  rmSync(credentialsPath(env), { force: true });
}
