#!/usr/bin/env -S node --enable-source-maps
/**
 * The operator's command line: `parley <command>` (package.json "bin", this file compiled to
 * dist/server/cli.js) or `npm run --silent cli -- <command>`. It works on the same
 * database as the server (DATABASE_URL / DATA_DIR). Exit codes: 0 done, 1 failed (not found,
 * no database, database unreachable; one line), 2 bad arguments (with the usage text), 78 bad
 * configuration. Only commands that write create a database that is not there yet.
 */
import Fastify from 'fastify';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { TOKEN_ACCESS, type TokenAccess } from '../shared/scopes.js';
import { registerCore } from './app.js';
import { ConfigError, databaseLocation, loadClientConfig, loadConfig, type Config } from './config.js';
import { AppError } from './domain/errors.js';
import type { Plan } from './domain/ports.js';
import { prepareDatabase } from './prepare.js';
import { databaseLabel } from './start-summary.js';
import { BackupError, backupDatabase, openDatabase } from './storage/dialects/index.js';
import { startupFailure } from './startup-errors.js';
import { credentialsPath, loadCredentials, removeCredentials, saveCredentials } from './client/credentials.js';
import { deviceLogin, http, LoginError, revokeToken, serverUrl, whoami } from './client/device-login.js';

const USAGE = `Usage: parley <command> [options]
       (or, in the project folder: npm run --silent cli -- <command> [options])

Commands:
  migrate                                 bring the database schema up to date
  backup FILE                             copy the SQLite database to FILE while the server
                                          runs (SQLite's online backup; PostgreSQL: pg_dump)
  restore FILE                            replace the SQLite database with the backup FILE
                                          (stop every server on it first)
  accounts create --email E [--name N]    a new account with E as its owner
  accounts list
  tokens create --access full|standard|custom [--scopes a,b] [--chatbots ID,ID]
                [--account ID] [--user EMAIL] [--name N] [--json]
                                          a v2 API token for the account's owner (or the user
                                          EMAIL of the account, within their role); printed once
  tokens list [--account ID] [--json]
  tokens revoke ID [--account ID]
  legacy-keys create [--account ID] [--json]
                                          a legacy v0 API key for the account's owner
  plan show [--account ID] [--json]
  plan set [--account ID] [--max-chatbots N] [--max-pages N] [--webhooks on|off]
           [--analytics on|off] [--branding-removal on|off] [--active on|off] [--name N]
  invoices record --name N --amount 12.50 --currency EUR [--status paid] [--url U] [--account ID]
  users set-password --email E [--account ID]
                                          the password E signs in with on the device
                                          verification page (/device), read from stdin

Signing in from the command line (against a running server, no database needed):
  login --server URL [--scopes a,b] [--chatbots ID,ID]
                                          the OAuth device flow: approve the code shown at
                                          URL/device; the token is kept in
                                          $XDG_CONFIG_HOME/parley/credentials.json (mode 0600)
  whoami [--json]                         who the stored token acts as
  logout                                  revoke the stored token and forget it
  mcp [--server URL]                      the MCP server over stdio, for desktop agents: relays
                                          to URL/mcp (default PARLEY_SERVER, else the server of
                                          login) with PARLEY_TOKEN, else the stored token

Without --account, commands act on the install's first account. Options take their value
as the next argument or after '=' (--account=ID). Lists print a table; --json prints JSON.
Exit status: 0 done, 1 failed, 2 bad arguments, 78 bad configuration.`;

/** Bad arguments: exit 2 with the usage text. */
class UsageError extends Error {}
/** Something named is not there (a user, a token, the database): exit 1, one line. */
class Failure extends Error {}

/** Every database command, and whether it writes (only those create a database that is missing). */
const COMMANDS: Record<string, 'read' | 'write'> = {
  migrate: 'write',
  'accounts create': 'write',
  'accounts list': 'read',
  'tokens create': 'write',
  'tokens list': 'read',
  'tokens revoke': 'write',
  'legacy-keys create': 'write',
  'plan show': 'read',
  'plan set': 'write',
  'invoices record': 'write',
  'users set-password': 'write',
};

/** `/abs/data/parley.db (DATA_DIR ./data of /abs)`: where the SQLite file is and why there. */
function whereSqlite(path: string): string {
  const dataDir = process.env.DATA_DIR;
  const why = process.env.DATABASE_URL
    ? 'DATABASE_URL'
    : dataDir
      ? `DATA_DIR=${dataDir}`
      : `DATA_DIR unset: ./data of ${process.cwd()}`;
  return `${path} (${why})`;
}

/** The configuration once read, so a failure can name the database it could not open. */
let configured: Config | undefined;

const onOff = (name: string, v: string | undefined): boolean | undefined => {
  if (v === undefined) return undefined;
  if (v === 'on') return true;
  if (v === 'off') return false;
  throw new UsageError(`--${name} takes on or off, not "${v}"`);
};
const count = (name: string, v: string | undefined): number | undefined => {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} takes a whole number of 0 or more, not "${v}"`);
  return Number(v);
};
const list = (v: string | undefined) =>
  v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
const amount = (v: string): number => {
  const n = Number(v.trim());
  if (!/^\s*-?(\d+\.?\d*|\.\d+)\s*$/.test(v) || !Number.isFinite(n))
    throw new UsageError(`--amount takes a number such as 12.50, not "${v}"`);
  return n;
};

/** Rows under a header line, each column as wide as its widest cell. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

const OPTIONS = {
  email: { type: 'string' },
  user: { type: 'string' },
  name: { type: 'string' },
  access: { type: 'string' },
  scopes: { type: 'string' },
  chatbots: { type: 'string' },
  account: { type: 'string' },
  json: { type: 'boolean' },
  'max-chatbots': { type: 'string' },
  'max-pages': { type: 'string' },
  webhooks: { type: 'string' },
  analytics: { type: 'string' },
  'branding-removal': { type: 'string' },
  active: { type: 'string' },
  amount: { type: 'string' },
  currency: { type: 'string' },
  status: { type: 'string' },
  url: { type: 'string' },
  server: { type: 'string' },
} as const;

/**
 * `--account -x1` as `--account=-x1`: a value may begin with "-" (ids made before ids stopped
 * doing so, a negative amount), which parseArgs would otherwise refuse as ambiguous.
 */
function joinOptionValues(args: string[]): string[] {
  const isOption = (a: string) => /^--[a-z-]+(=|$)/.test(a) && a.slice(2).split('=')[0] in OPTIONS;
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = /^--([a-z-]+)$/.exec(args[i])?.[1];
    const next = args[i + 1];
    if (name && OPTIONS[name as keyof typeof OPTIONS]?.type === 'string' && next?.startsWith('-') && !isOption(next)) {
      out.push(`${args[i]}=${next}`);
      i++;
    } else out.push(args[i]);
  }
  return out;
}

async function run(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    // Asked-for help goes to stdout; a missing command is an error, so its usage goes to stderr.
    (command ? console.log : console.error)(USAGE);
    return command ? 0 : 2;
  }
  const needsSub = ['accounts', 'tokens', 'legacy-keys', 'plan', 'invoices', 'users'].includes(command);
  const args = needsSub ? rest : [sub, ...rest].filter((a) => a !== undefined);
  const { values, positionals } = parseArgs({
    args: joinOptionValues(args),
    allowPositionals: true,
    strict: true,
    options: OPTIONS,
  });
  // The client side: these talk to a running server over HTTP, never to a database.
  if (CLIENT_COMMANDS.includes(command)) return clientCommand(command, values);
  if (command === 'backup' || command === 'restore') return backupCommand(command, positionals);

  const key = `${command}${needsSub ? ` ${sub ?? ''}` : ''}`.trim();
  const kind = COMMANDS[key];
  if (!kind) throw new UsageError(`Unknown command "${key}"`);
  // A read command never creates a database: run in the wrong folder, it says where it looked.
  const where = databaseLocation();
  const fresh = !where.databaseUrl && !existsSync(where.sqlitePath);
  if (fresh && kind === 'read') {
    throw new Failure(
      `No database at ${whereSqlite(where.sqlitePath)}. Run parley in the project folder where the server runs, or set DATA_DIR (or DATABASE_URL) to the server's; a command that writes (migrate, tokens create, ...) creates one.`,
    );
  }
  const config = loadConfig();
  configured = config;
  if (fresh) process.stderr.write(`Creating a new database at ${whereSqlite(config.sqlitePath)}\n`);
  const database = openDatabase({ url: config.databaseUrl, sqlitePath: config.sqlitePath, poolSize: 2 });
  let closeCore = async () => {};
  try {
    // Progress on stderr, so --json output stays one document.
    const applied = await prepareDatabase(database, config.ownerEmail, (name) =>
      process.stderr.write(`applying migration ${name}\n`),
    );
    // The services without HTTP and without background work.
    const core = Fastify({ logger: false });
    await registerCore(core, config, { database, backgroundJobs: false });
    await core.ready();
    closeCore = () => core.close();
    const services = core.services;
    const out = (json: unknown, text: string) => console.log(values.json ? JSON.stringify(json) : text);
    switch (key) {
      case 'migrate':
        console.log(
          applied.length
            ? `Applied to ${databaseLabel(config)}: ${applied.join(', ')}`
            : `The database (${databaseLabel(config)}) is up to date`,
        );
        return 0;
      case 'accounts create': {
        if (!values.email) throw new UsageError('accounts create needs --email');
        const { account, owner } = await services.accounts.create(values.email, values.name);
        out(
          { id: account.id, name: account.name, ownerId: owner.id, ownerEmail: owner.email },
          `Created account ${account.id} (owner ${owner.email})`,
        );
        return 0;
      }
      case 'accounts list': {
        const accounts = await services.accounts.list();
        if (values.json) console.log(JSON.stringify(accounts));
        else
          console.log(
            table(
              ['ID', 'NAME', 'PLAN', 'ACTIVE', 'CREATED'],
              accounts.map((a) => [a.id, a.name, a.plan.name, a.plan.active ? 'on' : 'off', a.createdAt]),
            ),
          );
        return 0;
      }
      case 'tokens create': {
        const access = values.access as TokenAccess | undefined;
        if (!access || !TOKEN_ACCESS.includes(access))
          throw new UsageError('tokens create needs --access full, standard or custom');
        if (access === 'custom' && !values.scopes) throw new UsageError('--access custom needs --scopes a,b');
        const account = await services.accounts.resolve(values.account);
        const owner = values.user
          ? await services.store.users.byEmail(account.id, values.user)
          : await services.store.users.owner(account.id);
        if (!owner)
          throw new Failure(
            values.user ? `no user ${values.user} in account ${account.id}` : `account ${account.id} has no owner`,
          );
        const created = await services.tokens.create(owner, {
          access,
          name: values.name,
          scopes: list(values.scopes),
          chatbotIds: list(values.chatbots) ?? null,
        });
        out(
          { token: created.token, ...created.record, accountId: account.id },
          `${created.token}\n\nToken ${created.record.id} (${access}) for ${owner.email}. Copy it now: it is not shown again.`,
        );
        return 0;
      }
      case 'tokens list': {
        const account = values.account ? await services.accounts.resolve(values.account) : null;
        const tokens = await services.tokens.listAll(account?.id ?? null);
        if (values.json) console.log(JSON.stringify(tokens));
        else
          console.log(
            table(
              ['ID', 'ACCESS', 'STATUS', 'LAST USED', 'NAME'],
              tokens.map((t) => [t.id, t.access, t.revokedAt ? 'revoked' : 'active', t.lastUsedAt ?? 'never', t.name]),
            ),
          );
        return 0;
      }
      case 'tokens revoke': {
        const id = positionals[0];
        if (!id) throw new UsageError('tokens revoke needs the token id');
        const account = values.account ? await services.accounts.resolve(values.account) : null;
        const token = (await services.store.tokens.listAll(account?.id ?? null)).find((t) => t.id === id);
        if (!token) throw new Failure(`no token ${id}${account ? ` in account ${account.id}` : ''}`);
        const revoked = await services.tokens.revokeAsOperator(token.accountId, id);
        out(revoked, `Revoked ${revoked.id}`);
        return 0;
      }
      case 'legacy-keys create': {
        const account = await services.accounts.resolve(values.account);
        const owner = await services.store.users.owner(account.id);
        if (!owner) throw new Failure(`account ${account.id} has no owner`);
        const key = await services.tokens.createLegacyKey(owner);
        out(
          { token: key.token, id: key.id, accountId: account.id },
          `${key.token}\n\nLegacy v0 key ${key.id}. Copy it now: it is not shown again.`,
        );
        return 0;
      }
      case 'plan show': {
        const account = await services.accounts.resolve(values.account);
        const p = account.plan;
        const yes = (b: boolean) => (b ? 'on' : 'off');
        out(
          { accountId: account.id, ...p },
          table(
            ['SETTING', 'VALUE'],
            [
              ['account', `${account.id} (${account.name})`],
              ['name', p.name],
              ['max-chatbots', String(p.maxChatbots)],
              ['max-pages', String(p.maxPages)],
              ['webhooks', yes(p.webhooks)],
              ['analytics', yes(p.analytics)],
              ['branding-removal', yes(p.brandingRemoval)],
              ['active', yes(p.active)],
            ],
          ),
        );
        return 0;
      }
      case 'plan set': {
        const account = await services.accounts.resolve(values.account);
        const plan: Partial<Plan> = {
          name: values.name,
          maxChatbots: count('max-chatbots', values['max-chatbots']),
          maxPages: count('max-pages', values['max-pages']),
          webhooks: onOff('webhooks', values.webhooks),
          analytics: onOff('analytics', values.analytics),
          brandingRemoval: onOff('branding-removal', values['branding-removal']),
          active: onOff('active', values.active),
        };
        for (const k of Object.keys(plan) as (keyof Plan)[]) if (plan[k] === undefined) delete plan[k];
        if (!Object.keys(plan).length) throw new UsageError('plan set needs at least one option to change');
        const updated = await services.accounts.setPlan(account.id, plan);
        out(updated.plan, `Plan of ${account.id}: ${JSON.stringify(updated.plan)}`);
        return 0;
      }
      case 'invoices record': {
        if (!values.name || !values.amount || !values.currency)
          throw new UsageError('invoices record needs --name, --amount and --currency');
        amount(values.amount);
        const account = await services.accounts.resolve(values.account);
        const invoice = await services.billing.record(account.id, {
          name: values.name,
          amount: amount(values.amount),
          currency: values.currency,
          status: values.status,
          url: values.url,
        });
        out(invoice, `Recorded invoice ${invoice.id}`);
        return 0;
      }
      case 'users set-password': {
        if (!values.email) throw new UsageError('users set-password needs --email');
        const account = await services.accounts.resolve(values.account);
        const user = await services.store.users.byEmail(account.id, values.email);
        if (!user) throw new Failure(`no user ${values.email} in account ${account.id}`);
        const password = await readPassword();
        await services.signIn.setPassword(user, password);
        out(
          { userId: user.id, email: user.email, accountId: account.id },
          `Password set for ${user.email}: sign in at ${config.siteUrl}/device`,
        );
        return 0;
      }
      default:
        throw new UsageError(`Unknown command "${key}"`);
    }
  } finally {
    await closeCore();
    await database.close();
  }
}

const CLIENT_COMMANDS = ['login', 'whoami', 'logout', 'mcp'];

/** `backup FILE` / `restore FILE`: a file copy through SQLite, no app and no migration. */
async function backupCommand(command: 'backup' | 'restore', positionals: string[]): Promise<number> {
  const [file, extra] = positionals;
  if (!file || extra !== undefined) throw new UsageError(`${command} needs one FILE`);
  const where = databaseLocation();
  const target = resolve(file);
  try {
    const done = await backupDatabase(where, target, command);
    console.log(
      command === 'backup'
        ? `Backed up ${where.sqlitePath} to ${target} (${done.pages} pages)`
        : `Restored ${target} into ${where.sqlitePath} (${done.pages} pages, ${done.migrations} migrations applied in it; the next start applies newer ones)`,
    );
    return 0;
  } catch (err) {
    if (err instanceof BackupError) throw new Failure(err.message);
    throw err;
  }
}

async function clientCommand(
  command: string,
  values: { server?: string; scopes?: string; chatbots?: string; json?: boolean },
): Promise<number> {
  const { configDir, extraCaCertificates, ...env } = loadClientConfig();
  http(extraCaCertificates);
  if (command === 'mcp') return mcpCommand(configDir, env, values.server);
  if (command === 'login') {
    if (!values.server)
      throw new UsageError('login needs --server URL (the site address, e.g. https://chat.example.com)');
    const server = serverUrl(values.server);
    const { hostname, protocol } = new URL(server);
    if (protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(hostname)) {
      process.stderr.write(`Warning: ${server} is plain http; the token will cross the network unencrypted.\n`);
    }
    const granted = await deviceLogin({
      server,
      scope: list(values.scopes)?.join(' '),
      chatbots: list(values.chatbots)?.join(' '),
      show: (p) =>
        console.log(
          `To sign in, open ${p.verificationUri}\nand enter the code ${p.userCode}\n` +
            (p.verificationUriComplete ? `(or open ${p.verificationUriComplete})\n` : '') +
            `The code expires in ${Math.round(p.expiresIn / 60)} minutes. Waiting for approval...`,
        ),
    });
    const file = saveCredentials(configDir, {
      server,
      accessToken: granted.accessToken,
      scope: granted.scope,
      savedAt: new Date().toISOString(),
    });
    console.log(`Signed in to ${server}. The token is stored in ${file}.`);
    return 0;
  }
  const stored = loadCredentials(configDir);
  if (!stored) {
    console.error(`Not signed in: run login --server URL (looked for ${credentialsPath(configDir)})`);
    return 1;
  }
  if (command === 'whoami') {
    const me = await whoami(stored.server, stored.accessToken);
    if (me.status === 401) {
      console.error(`The stored token for ${stored.server} is no longer valid (revoked?): run login again`);
      return 1;
    }
    if (me.status !== 200 || !me.body?.data) {
      console.error(`${stored.server} answered ${me.status}: ${me.body?.error?.message ?? 'no identity'}`);
      return 1;
    }
    const d = me.body.data;
    if (values.json) console.log(JSON.stringify({ server: stored.server, ...d }));
    else
      console.log(
        `${d.user.email} (${d.user.role}) in account ${d.account.name} (${d.account.id}) at ${stored.server}\nToken ${d.token.id}: ${d.scopes.join(' ')}${d.chatbotIds ? `\nChatbots: ${d.chatbotIds.join(', ')}` : ''}`,
      );
    return 0;
  }
  // logout: revoked at the server first; the file goes only once the token is dead.
  await revokeToken(stored.server, stored.accessToken);
  removeCredentials(configDir);
  console.log(`Signed out of ${stored.server}: the token is revoked and forgotten.`);
  return 0;
}

/**
 * `mcp`: stdio relayed to the server's /mcp. The server and token come from --server or
 * PARLEY_SERVER and PARLEY_TOKEN, else from what `login` stored (its token only for its server).
 */
async function mcpCommand(configDir: string, env: { server?: string; token?: string }, flag?: string) {
  const stored = loadCredentials(configDir);
  const named = flag ?? env.server;
  const server = named ? serverUrl(named) : stored?.server;
  if (!server) throw new UsageError('mcp needs --server URL or PARLEY_SERVER, or a sign-in first (login --server URL)');
  const token = env.token ?? (stored && stored.server === server ? stored.accessToken : undefined);
  if (!token) {
    console.error(
      `No token for ${server}: set PARLEY_TOKEN (a token from tokens create) or run login --server ${server}`,
    );
    return 1;
  }
  process.stderr.write(`Parley MCP server on stdio, relaying to ${server}/mcp\n`);
  // Loaded here: the other commands start without the MCP SDK.
  const { bridgeStdio } = await import('./client/mcp-bridge.js');
  await bridgeStdio({
    server,
    token,
    // Tool calls such as ask_chatbot wait for a language model; answers can be large lists.
    fetch: http().fetchWith({ timeoutMs: 180_000, maxBytes: 16 * 1024 * 1024 }),
    warn: (line) => process.stderr.write(`${line}\n`),
  });
  return 0;
}

/** A password from stdin: typed twice without echo at a terminal, else the first line piped in. */
async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    let text = '';
    for await (const chunk of process.stdin) text += chunk;
    return text.replace(/\r?\n$/, '');
  }
  const ask = (question: string) =>
    new Promise<string>((resolve) => {
      process.stderr.write(question);
      const stdin = process.stdin;
      stdin.setRawMode(true);
      stdin.resume();
      let typed = '';
      const onData = (data: Buffer) => {
        for (const ch of data.toString('utf8')) {
          if (ch === '\r' || ch === '\n') {
            stdin.setRawMode(false);
            stdin.pause();
            stdin.off('data', onData);
            process.stderr.write('\n');
            return resolve(typed);
          }
          if (ch === '\u0003') process.exit(130);
          if (ch === '\u007f') typed = typed.slice(0, -1);
          else typed += ch;
        }
      };
      stdin.on('data', onData);
    });
  const first = await ask('New password: ');
  if ((await ask('Again: ')) !== first) throw new UsageError('the two passwords differ');
  return first;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`Error: ${err.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(78);
    }
    if (err instanceof LoginError || err instanceof Failure) {
      console.error(`Error: ${err.message}`);
      process.exit(1);
    }
    if (err instanceof AppError) {
      const details = Array.isArray(err.extra.details)
        ? ` (${err.extra.details.map((d: { path: unknown[]; message: string }) => `${d.path.join('.')} ${d.message}`).join('; ')})`
        : '';
      console.error(`Error: ${err.message}${details}`);
      process.exit(1);
    }
    // One line, not a stack: a database that cannot be opened or reached is the usual cause.
    console.error(`Error: ${startupFailure(err, configured)}`);
    process.exit(1);
  },
);
