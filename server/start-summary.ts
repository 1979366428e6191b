/**
 * The start line: what this instance runs with, as structured log fields and one sentence a
 * person reads. Never a secret: the database URL loses its password, the API key is not named.
 */
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
    database: string;
    answerer: string;
    embeddings: string;
    privateFetch: string;
    observability: string;
    api: string;
    openapi: string;
  };
  message: string;
}

export function startSummary(config: Config): StartSummary {
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
  const fields = {
    database: databaseLabel(config),
    answerer,
    embeddings,
    privateFetch,
    observability,
    api: `${config.siteUrl}/api/v2`,
    openapi: `${config.siteUrl}/api/v2/openapi.json`,
  };
  return {
    fields,
    message: `Parley is ready: API ${fields.api} (OpenAPI ${fields.openapi}); ${fields.database}; answers by the ${answerer}; embeddings ${embeddings}; private addresses: ${privateFetch}; ${observability}`,
  };
}
