/**
 * The start line: what this instance runs with, as structured log fields and one sentence a
 * person reads. Never a secret: the database URL loses its password, the API key is not named.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';

export function databaseLabel(config: Config): string {
  if (!config.databaseUrl) return `SQLite at ${config.sqlitePath}`;
  try {
    const u = new URL(config.databaseUrl);
    return `PostgreSQL at ${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}

export interface StartSummary {
  fields: {
    console: string;
    database: string;
    answerer: string;
    embeddings: string;
    privateFetch: string;
    observability: string;
    api: string;
    openapi: string;
    /** A fresh install only: where the first owner sets their password (once, within 24 hours). */
    setupLink?: string;
  };
  message: string;
}

/** `setupLink`: the first-run link, when nobody has a password yet (SignInService.setupToken). */
export function startSummary(config: Config, setupLink: string | null = null): StartSummary {
  const answerer = config.openai
    ? `language model at ${config.openai.baseUrl} (${config.answers.models['gpt-4.1-mini']} for gpt-4.1-mini, ${config.answers.models['gpt-4.1']} for gpt-4.1)`
    : 'built-in offline answerer (no OPENAI_API_KEY or OPENAI_BASE_URL)';
  const embeddings = config.openai?.embeddingModel
    ? `on (${config.openai.embeddingModel}, hybrid with full-text)`
    : 'off (full-text search only)';
  const privateFetch = config.allowPrivateFetch
    ? 'every loopback and private address (ALLOW_PRIVATE_FETCH=1)'
    : config.privateFetchRanges.length
      ? `only ${config.privateFetchRanges.join(', ')} (ALLOW_PRIVATE_FETCH)`
      : 'off: crawling reaches public addresses only';
  const observability = [
    config.metricsToken ? `metrics at ${config.siteUrl}/metrics (METRICS_TOKEN)` : 'metrics off (no METRICS_TOKEN)',
    config.tracing ? `traces to ${config.tracing.exporter === 'otlp' ? 'OTLP' : 'the console'}` : 'traces off',
  ].join(', ');
  const fields: StartSummary['fields'] = {
    console: `${config.siteUrl}/console`,
    database: databaseLabel(config),
    answerer,
    embeddings,
    privateFetch,
    observability,
    api: `${config.siteUrl}/api/v2`,
    openapi: `${config.siteUrl}/api/v2/openapi.json`,
  };
  if (setupLink) fields.setupLink = setupLink;
  const ready = `Parley is ready: console ${fields.console}, API ${fields.api} (OpenAPI ${fields.openapi}); ${fields.database}; answers by the ${answerer}; embeddings ${embeddings}; private addresses: ${privateFetch}; ${observability}`;
  return {
    fields,
    message: setupLink
      ? `${ready}. First run: nobody can sign in yet; open ${setupLink} to choose the owner's password (works once, within 24 hours)`
      : ready,
  };
}

/** The first-run set-up link for the first account's owner, or null once anyone has a password. */
export async function firstRunLink(app: FastifyInstance, siteUrl: string): Promise<string | null> {
  const account = await app.services.accounts.resolve();
  const owner = await app.services.store.users.owner(account.id);
  const token = owner ? await app.services.signIn.setupToken(owner) : null;
  return token ? `${siteUrl}/console/setup#${token}` : null;
}
