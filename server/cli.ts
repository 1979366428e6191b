/**
 * The operator's command line: `npm run --silent cli -- <command>`. It works on the same
 * database as the server (DATABASE_URL / DATA_DIR) and exits non-zero with a message on any
 * bad argument.
 */
import Fastify from 'fastify';
import { parseArgs } from 'node:util';
import { TOKEN_ACCESS, type TokenAccess } from '../shared/scopes.js';
import { registerCore } from './app.js';
import { loadConfig } from './config.js';
import { AppError } from './domain/errors.js';
import type { Plan } from './domain/ports.js';
import { prepareDatabase } from './prepare.js';
import { openDatabase } from './storage/dialects/index.js';

const USAGE = `Usage: npm run --silent cli -- <command> [options]

Commands:
  migrate                                 bring the database schema up to date
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
  plan set [--account ID] [--max-chatbots N] [--max-pages N] [--webhooks on|off]
           [--analytics on|off] [--branding-removal on|off] [--active on|off] [--name N]
  invoices record --name N --amount 12.50 --currency EUR [--status paid] [--url U] [--account ID]

Without --account, commands act on the install's first account.`;

class UsageError extends Error {}

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
const list = (v: string | undefined) => (v === undefined ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean));

async function run(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    // Asked-for help goes to stdout; a missing command is an error, so its usage goes to stderr.
    (command ? console.log : console.error)(USAGE);
    return command ? 0 : 2;
  }
  const needsSub = ['accounts', 'tokens', 'legacy-keys', 'plan', 'invoices'].includes(command);
  const args = needsSub ? rest : [sub, ...rest].filter((a) => a !== undefined);
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
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
    },
  });

  const config = loadConfig();
  const database = openDatabase({ url: config.databaseUrl, sqlitePath: config.sqlitePath, poolSize: 2 });
  let closeCore = async () => {};
  try {
    // Progress on stderr, so --json output stays one document.
    const applied = await prepareDatabase(database, config.ownerEmail, (name) => process.stderr.write(`applying migration ${name}\n`));
    // The services without HTTP and without background work.
    const core = Fastify({ logger: false });
    await registerCore(core, config, { database, backgroundJobs: false });
    await core.ready();
    closeCore = () => core.close();
    const services = core.services;
    const out = (json: unknown, text: string) => console.log(values.json ? JSON.stringify(json) : text);
    const key = `${command}${needsSub ? ` ${sub ?? ''}` : ''}`.trim();

    switch (key) {
      case 'migrate':
        console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'The database is up to date');
        return 0;
      case 'accounts create': {
        if (!values.email) throw new UsageError('accounts create needs --email');
        const { account, owner } = await services.accounts.create(values.email, values.name);
        out({ id: account.id, name: account.name, ownerId: owner.id, ownerEmail: owner.email }, `Created account ${account.id} (owner ${owner.email})`);
        return 0;
      }
      case 'accounts list': {
        const accounts = await services.accounts.list();
        if (values.json) console.log(JSON.stringify(accounts));
        else for (const a of accounts) console.log(`${a.id}  ${a.name}  plan=${a.plan.name} active=${a.plan.active ? 'on' : 'off'}`);
        return 0;
      }
      case 'tokens create': {
        const access = values.access as TokenAccess | undefined;
        if (!access || !TOKEN_ACCESS.includes(access)) throw new UsageError('tokens create needs --access full, standard or custom');
        if (access === 'custom' && !values.scopes) throw new UsageError('--access custom needs --scopes a,b');
        const account = await services.accounts.resolve(values.account);
        const owner = values.user ? await services.store.users.byEmail(account.id, values.user) : await services.store.users.owner(account.id);
        if (!owner) throw new UsageError(values.user ? `no user ${values.user} in account ${account.id}` : `account ${account.id} has no owner`);
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
        else for (const t of tokens) console.log(`${t.id}  ${t.access.padEnd(8)} ${t.revokedAt ? 'revoked' : 'active '}  ${t.name}  last used ${t.lastUsedAt ?? 'never'}`);
        return 0;
      }
      case 'tokens revoke': {
        const id = positionals[0];
        if (!id) throw new UsageError('tokens revoke needs the token id');
        const account = values.account ? await services.accounts.resolve(values.account) : null;
        const token = (await services.store.tokens.listAll(account?.id ?? null)).find((t) => t.id === id);
        if (!token) throw new UsageError(`no token ${id}${account ? ` in account ${account.id}` : ''}`);
        const revoked = await services.tokens.revokeAsOperator(token.accountId, id);
        out(revoked, `Revoked ${revoked.id}`);
        return 0;
      }
      case 'legacy-keys create': {
        const account = await services.accounts.resolve(values.account);
        const owner = await services.store.users.owner(account.id);
        if (!owner) throw new UsageError(`account ${account.id} has no owner`);
        const key = await services.tokens.createLegacyKey(owner);
        out({ token: key.token, id: key.id, accountId: account.id }, `${key.token}\n\nLegacy v0 key ${key.id}. Copy it now: it is not shown again.`);
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
        if (!values.name || !values.amount || !values.currency) throw new UsageError('invoices record needs --name, --amount and --currency');
        const account = await services.accounts.resolve(values.account);
        const invoice = await services.billing.record(account.id, {
          name: values.name,
          amount: Number(values.amount),
          currency: values.currency,
          status: values.status,
          url: values.url,
        });
        out(invoice, `Recorded invoice ${invoice.id}`);
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

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`Error: ${err.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (err instanceof AppError) {
      const details = Array.isArray(err.extra.details) ? ` (${err.extra.details.map((d: { path: unknown[]; message: string }) => `${d.path.join('.')} ${d.message}`).join('; ')})` : '';
      console.error(`Error: ${err.message}${details}`);
      process.exit(1);
    }
    console.error(err);
    process.exit(1);
  },
);
