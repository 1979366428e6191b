/**
 * Confluence connections of a chatbot: connect (the credentials are tried once, then stored
 * encrypted), browse spaces and pages to choose from, import a selection as an ingest job.
 * Re-syncs (on demand or every `syncIntervalMinutes`) go through KnowledgeService.resyncSource,
 * which rebuilds the items from the saved selection; disconnecting is deleting the source.
 */
import type { AuthContext } from '../../auth.js';
import type { ChatbotsService } from '../../chatbots.service.js';
import type { CursorCodec } from '../../cursor.js';
import { AppError, notFound, validationFailed } from '../../errors.js';
import { newId, nowIso } from '../../ids.js';
import type { Store } from '../../ports.js';
import { SecretError, type SecretBox } from '../../secrets.js';
import type { Fetcher } from '../crawl/fetcher.js';
import type { IngestRunner } from '../ingest-runner.js';
import type { KnowledgeService } from '../knowledge.service.js';
import type { SourceRecord } from '../ports.js';
import {
  ConfluenceError,
  defaultDeployment,
  isConfluenceError,
  normalizeBaseUrl,
  type ConfluenceSite,
  type ConfluenceAdapter,
  type Deployment,
} from './site.js';
import { clientFor, configOf, credentialsContext, selectionItems, type ConfluenceConfig } from './items.js';

export interface ConnectInput {
  baseUrl: string;
  deployment?: Deployment;
  email?: string;
  apiToken: string;
  name?: string;
  syncIntervalMinutes?: number | null;
}

const TOKEN_HINT: Record<Deployment, string> = {
  cloud:
    'Send the Atlassian account email with an API token created at https://id.atlassian.com/manage-profile/security/api-tokens',
  datacenter:
    'Send a personal access token created in Confluence under Profile > Personal Access Tokens (for Cloud sites, set deployment to "cloud")',
};

export class ConfluenceService {
  constructor(
    private readonly store: Store,
    private readonly chatbots: ChatbotsService,
    private readonly knowledge: KnowledgeService,
    private readonly runner: IngestRunner,
    private readonly fetcher: Fetcher,
    private readonly adapter: ConfluenceAdapter,
    private readonly secrets: SecretBox,
    private readonly cursors: CursorCodec,
  ) {}

  /** Tries the credentials, then stores the connection (or refreshes the one for that site and account). */
  async connect(auth: AuthContext, chatbotId: string, input: ConnectInput) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const rough = normalizeBaseUrl(input.baseUrl, input.deployment);
    if (!rough)
      throw validationFailed([
        { path: ['baseUrl'], message: 'must be an absolute http(s) URL such as https://example.atlassian.net' },
      ]);
    const deployment = input.deployment ?? defaultDeployment(rough);
    const baseUrl = normalizeBaseUrl(input.baseUrl, deployment)!;
    const email = input.email?.trim() || null;
    const apiToken = input.apiToken.trim();
    if (deployment === 'cloud' && !email) {
      throw validationFailed([
        { path: ['email'], message: 'Confluence Cloud signs in with the Atlassian account email and an API token' },
      ]);
    }
    if (!apiToken) throw validationFailed([{ path: ['apiToken'], message: 'must not be blank' }]);

    const site: ConfluenceSite = { baseUrl, deployment };
    let identity: string;
    try {
      const user = await this.adapter.client(this.fetcher, site, { email, apiToken }).currentUser();
      if (user.anonymous)
        throw new ConfluenceError(
          'unauthorized',
          'Confluence treated the request as anonymous: the credentials were not accepted',
          401,
        );
      identity = (deployment === 'cloud' ? email! : user.identity || email || '').toLowerCase();
    } catch (err) {
      throw this.connectError(err, deployment);
    }

    const key = `${baseUrl}#${identity}`;
    const at = nowIso();
    const existing = await this.store.knowledge.sources.byKey(chatbot.id, 'confluence', key);
    const id = existing?.id ?? newId();
    const credentials = this.secrets.seal({ email, apiToken }, credentialsContext(id));
    if (existing) {
      const patch: Partial<SourceRecord> = {
        credentials,
        config: { ...existing.config, baseUrl, deployment, email },
        lastError: null,
        updatedAt: at,
      };
      if (input.name) patch.name = input.name.slice(0, 300);
      if (input.syncIntervalMinutes !== undefined) patch.syncIntervalMinutes = input.syncIntervalMinutes;
      await this.store.knowledge.sources.update(existing.id, patch);
    } else {
      const config: ConfluenceConfig = { baseUrl, deployment, email, spaces: [], pageIds: [] };
      await this.store.knowledge.sources.insert({
        id,
        chatbotId: chatbot.id,
        accountId: chatbot.accountId,
        type: 'confluence',
        key,
        name: (input.name || `Confluence (${new URL(baseUrl).host})`).slice(0, 300),
        config: { ...config },
        credentials,
        status: 'idle',
        lastError: null,
        lastSyncAt: null,
        syncIntervalMinutes: input.syncIntervalMinutes ?? null,
        nextSyncAt: null,
        createdAt: at,
        updatedAt: at,
      });
    }
    return { source: await this.knowledge.getSource(auth, chatbot.id, id), created: !existing };
  }

  /** The spaces the connected account can read, one Confluence page at a time. */
  async spaces(auth: AuthContext, chatbotId: string, connectionId: string, limit: number, cursor?: string) {
    const source = await this.connection(auth, chatbotId, connectionId);
    const list = `confluence-spaces:${source.id}`;
    const start = this.decodeStart(list, cursor);
    const config = configOf(source);
    const page = await this.call(
      () => clientFor(this.adapter, this.fetcher, this.secrets, source).listSpaces(start, limit),
      'space list',
    );
    return {
      spaces: page.items.map((s) => ({ ...s, imported: config.spaces.includes(s.key) })),
      nextCursor: this.encodeStart(list, page.nextStart),
    };
  }

  /** Pages to choose from: of one space, or of every space the account can read. */
  async pages(
    auth: AuthContext,
    chatbotId: string,
    connectionId: string,
    spaceKey: string | undefined,
    limit: number,
    cursor?: string,
  ) {
    const source = await this.connection(auth, chatbotId, connectionId);
    const list = `confluence-pages:${source.id}:${spaceKey ?? ''}`;
    const start = this.decodeStart(list, cursor);
    const config = configOf(source);
    const page = await this.call(
      () => clientFor(this.adapter, this.fetcher, this.secrets, source).listPages(spaceKey ?? null, start, limit),
      spaceKey ? `space ${spaceKey}` : 'page list',
    );
    return {
      pages: page.items.map((p) => ({
        ...p,
        imported: config.pageIds.includes(p.id) || (p.spaceKey !== null && config.spaces.includes(p.spaceKey)),
      })),
      nextCursor: this.encodeStart(list, page.nextStart),
    };
  }

  /**
   * Adds spaces and pages to the connection's selection and imports them now, as one ingest job.
   * The selection is what later syncs (scheduled or on demand) fetch again.
   */
  async importSelection(
    auth: AuthContext,
    chatbotId: string,
    connectionId: string,
    input: { spaceKeys?: string[]; pageIds?: string[] },
  ) {
    const source = await this.connection(auth, chatbotId, connectionId);
    await this.knowledge.writable(auth, source.chatbotId);
    const spaces = [...new Set(input.spaceKeys ?? [])];
    const pageIds = [...new Set(input.pageIds ?? [])];
    if (!spaces.length && !pageIds.length) {
      throw validationFailed([
        { path: ['spaceKeys'], message: 'choose at least one space (spaceKeys) or page (pageIds)' },
      ]);
    }
    const config = configOf(source);
    const next: ConfluenceConfig = {
      ...config,
      spaces: [...new Set([...config.spaces, ...spaces])],
      pageIds: [...new Set([...config.pageIds, ...pageIds])],
    };
    const updated: SourceRecord = { ...source, config: { ...source.config, ...next }, updatedAt: nowIso() };
    await this.store.knowledge.sources.update(source.id, { config: updated.config, updatedAt: updated.updatedAt });
    const job = await this.runner.createJob(updated, 'add', selectionItems(next, { spaces, pageIds }));
    return {
      job: await this.knowledge.job(auth, source.chatbotId, job.id),
      source: await this.knowledge.getSource(auth, source.chatbotId, source.id),
    };
  }

  private async connection(auth: AuthContext, chatbotId: string, connectionId: string): Promise<SourceRecord> {
    const source = await this.knowledge.reachSource(auth, chatbotId, connectionId);
    if (source.type !== 'confluence') throw notFound('Confluence connection');
    return source;
  }

  /** Confluence's `start` offset, carried in the API's signed cursor (bound to this list). */
  private decodeStart(list: string, cursor: string | undefined): number {
    const key = this.cursors.decode(list, cursor);
    if (!key) return 0;
    const start = Number(key.id);
    if (!Number.isSafeInteger(start) || start < 0)
      throw new AppError('INVALID_CURSOR', 'The cursor was not issued by this API for this list');
    return start;
  }

  private encodeStart(list: string, start: number | null): string | null {
    return start === null ? null : this.cursors.encode(list, { createdAt: '', id: String(start) });
  }

  /** A Confluence call on behalf of a stored connection, its failures said in the API's terms. */
  private async call<T>(fn: () => Promise<T>, what: string): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof SecretError) {
        throw validationFailed(
          [{ path: ['connectionId'], message: err.message }],
          'The stored Confluence credentials cannot be used',
        );
      }
      if (!isConfluenceError(err)) throw err;
      switch (err.kind) {
        case 'unauthorized':
        case 'forbidden':
          throw new AppError('VALIDATION_FAILED', err.message, {
            details: [{ path: ['connectionId'], message: err.message }],
            hint: 'The stored token was revoked, expired or lacks access: connect again with POST /chatbots/{chatbotId}/knowledge/sources/confluence',
          });
        case 'not-found':
          throw new AppError('NOT_FOUND', err.message, {
            hint: `Check the ${what} key; list spaces with GET .../knowledge/sources/confluence/spaces`,
          });
        default:
          throw upstreamError(err);
      }
    }
  }

  private connectError(err: unknown, deployment: Deployment): unknown {
    if (!isConfluenceError(err)) return err;
    switch (err.kind) {
      case 'unauthorized':
      case 'forbidden':
        return new AppError('VALIDATION_FAILED', `Confluence refused these credentials: ${err.message}`, {
          details: [{ path: ['apiToken'], message: err.message }],
          hint: TOKEN_HINT[deployment],
        });
      case 'not-found':
      case 'bad-response':
      case 'network':
        return new AppError('VALIDATION_FAILED', `No Confluence REST API answered at that base URL: ${err.message}`, {
          details: [{ path: ['baseUrl'], message: err.message }],
          hint: 'Use the address you open Confluence at (e.g. https://example.atlassian.net or https://wiki.example.com/confluence) and the right deployment',
        });
      default:
        return upstreamError(err);
    }
  }
}

/** Confluence is down or throttling: not the caller's mistake nor ours, so a 502 that says whose it is. */
function upstreamError(err: ConfluenceError): AppError {
  const retry = err.retryAfterSeconds;
  return new AppError('UPSTREAM_UNAVAILABLE', `Confluence: ${err.message}`, {
    hint:
      retry !== null
        ? `Confluence asks to wait ${retry} s; try again after that`
        : 'Confluence did not answer properly; try again later',
    ...(retry !== null ? { headers: { 'retry-after': String(retry) } } : {}),
  });
}
