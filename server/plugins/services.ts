/** The domain services, built once per app over one Store, one queue and one outbound client. */
import type { Config } from '../config.js';
import { AccountsService } from '../domain/accounts.service.js';
import { AnalyticsService } from '../domain/analytics.service.js';
import { createAnswerEngine } from '../domain/answers/engine.js';
import { createExtractiveProvider } from '../domain/answers/extractive.js';
import { createOpenAIProvider, streamDeadlineMs } from '../domain/answers/openai-provider.js';
import { BillingService } from '../domain/billing.service.js';
import { ChatbotsService } from '../domain/chatbots.service.js';
import { ConversationsService } from '../domain/conversations/conversations.service.js';
import { CursorCodec } from '../domain/cursor.js';
import { IconsService } from '../domain/icons.service.js';
import { ConfluenceService } from '../domain/knowledge/confluence/confluence.service.js';
import { confluenceItems } from '../domain/knowledge/confluence/items.js';
import { guardedFetcher } from '../domain/knowledge/crawl/fetcher-adapter.js';
import { DocumentIndexer } from '../domain/knowledge/indexer.js';
import { IngestRunner } from '../domain/knowledge/ingest-runner.js';
import { fileItem, textItem, youtubeItem } from '../domain/knowledge/items/content.js';
import { linkItem, pageItem, sitemapItem } from '../domain/knowledge/items/web.js';
import { KnowledgeService } from '../domain/knowledge/knowledge.service.js';
import { createResourceServices } from '../domain/resources/index.js';
import { recordGap } from '../domain/resources/knowledge-gaps.js';
import { captureLead } from '../domain/resources/leads.js';
import { SecretBox } from '../domain/secrets.js';
import { TokensService } from '../domain/tokens.service.js';
import { addressRangeMatcher } from '../outbound/address-policy.js';
import { GuardedHttpClient } from '../outbound/guarded-client.js';
import { EmbeddedQueue } from '../queue/embedded-queue.js';
import type { DatabaseHandle } from '../storage/dialects/index.js';
import { analyticsStore } from '../storage/analytics.repository.js';
import { answerContextRepository } from '../storage/answers.repository.js';
import { createWordNet } from '../lexicon/wordnet.js';
import { createStore } from '../storage/store.js';
import { createRetrieval } from './retrieval.js';

export const USER_AGENT = 'Parley/0.1 (+https://github.com/parley-chat/parley)';

export function createServices(database: DatabaseHandle, config: Config, log?: { error(obj: unknown, msg: string): void }) {
  const store = createStore(database.db, database.dialect);
  const cursors = new CursorCodec(config.secretKey);
  const chatbots = new ChatbotsService(store, cursors);
  const outbound = new GuardedHttpClient({
    allowPrivate: config.allowPrivateFetch,
    ...(config.privateFetchRanges.length ? { isAllowedAddress: addressRangeMatcher(config.privateFetchRanges) } : {}),
    userAgent: USER_AGENT, defaults: { timeoutMs: config.outboundTimeoutMs } });
  // The model endpoint (OPENAI_BASE_URL) is the operator's choice, not anyone's input: it may be a
  // model server on the private network. Its requests keep every other limit.
  const models = config.openai ? new GuardedHttpClient({ allowPrivate: true, userAgent: USER_AGENT, defaults: { timeoutMs: config.outboundTimeoutMs } }) : outbound;
  const queue = new EmbeddedQueue(database.db, {
    concurrency: config.queue.concurrency,
    leaseMs: config.queue.leaseMs,
    pollMs: config.queue.pollMs,
    onError: (err, job) => log?.error({ err, job }, 'background job failed'),
  });
  const fetcher = guardedFetcher(outbound);
  // Hybrid (vectors + words) when EMBEDDING_MODEL is set, else words only; the indexer writes vectors through it.
  const retriever = createRetrieval(store.knowledge, database, config, models.fetch, log);
  const indexer = new DocumentIndexer(store, retriever);
  const runner = new IngestRunner(store, queue, fetcher, indexer, { userAgent: USER_AGENT, minCrawlDelayMs: config.crawl.minDelayMs, extractLimits: { timeoutMs: config.extractTimeoutMs } });
  runner.register('page', pageItem);
  runner.register('link', linkItem);
  runner.register('sitemap', sitemapItem);
  runner.register('text', textItem);
  runner.register('file', fileItem);
  runner.register('youtube', youtubeItem(config.youtubeBaseUrl));
  const secrets = new SecretBox(config.secretKey);
  for (const [type, handler] of Object.entries(confluenceItems(secrets))) runner.register(type, handler);
  const knowledge = new KnowledgeService(store, chatbots, runner, cursors, config.crawl);
  // A language model when an OpenAI-compatible endpoint is configured, else the built-in answerer.
  const answers = createAnswerEngine({
    retriever,
    store: answerContextRepository(database.db),
    lexicon: createWordNet(),
    provider: config.openai
      ? createOpenAIProvider({
          baseUrl: config.openai.baseUrl,
          apiKey: config.openai.apiKey || null,
          models: config.answers.models,
          fetch: models.fetchWith({ timeoutMs: streamDeadlineMs(config.answers.timeoutMs) }),
          timeoutMs: config.answers.timeoutMs,
          onError: (err, context) => log?.error({ err, ...context }, 'language model failed; answered with the unavailable reply'),
        })
      : createExtractiveProvider(),
  });
  return {
    store,
    retriever,
    queue,
    outbound,
    models,
    runner,
    accounts: new AccountsService(store),
    tokens: new TokensService(store, cursors),
    chatbots,
    icons: new IconsService(store, chatbots, config.siteUrl),
    billing: new BillingService(store, cursors),
    knowledge,
    analytics: new AnalyticsService(analyticsStore(database.db), chatbots),
    confluence: new ConfluenceService(store, chatbots, knowledge, runner, fetcher, secrets, cursors),
    /** Starters, follow-ups, instructions, personas, custom responses, tags, members, leads, knowledge gaps. */
    resources: createResourceServices(store, chatbots, cursors),
    answers,
    conversations: new ConversationsService(store, chatbots, cursors, answers, {
      captureLead: (s, lead) => captureLead(s, lead),
      recordGap: async (s, gap) => void (await recordGap(s, gap)),
    }, { answerLeaseMs: config.answerLeaseMs, onError: (err, context) => log?.error({ err, ...context }, 'answering a visitor message failed') }),
  };
}

export type Services = ReturnType<typeof createServices>;
