/**
 * services: the domain services, built once per app over the storage, outbound and queue plugins'
 * parts, and the scheduled knowledge sync (started with the queue, stopped before it).
 */
import fp from 'fastify-plugin';
import { confluenceAdapter } from '../adapters/confluence/client.js';
import { guardedFetcher } from '../adapters/crawl-fetcher.js';
import { extractor } from '../adapters/extraction/index.js';
import { createMailer } from '../adapters/mail.js';
import { createOpenAIProvider, streamDeadlineMs } from '../adapters/openai-provider.js';
import { createWordNet } from '../adapters/wordnet.js';
import { youtubeItem } from '../adapters/youtube.js';
import type { Config } from '../config.js';
import { AccountsService } from '../domain/accounts.service.js';
import { AnalyticsService } from '../domain/analytics.service.js';
import { createAnswerEngine } from '../domain/answers/engine.js';
import { createExtractiveProvider } from '../domain/answers/extractive.js';
import { BillingService } from '../domain/billing.service.js';
import { ChatbotsService } from '../domain/chatbots.service.js';
import { ConversationsService } from '../domain/conversations/conversations.service.js';
import { CursorCodec } from '../domain/cursor.js';
import { IconsService } from '../domain/icons.service.js';
import { ConfluenceService } from '../domain/knowledge/confluence/confluence.service.js';
import { confluenceItems } from '../domain/knowledge/confluence/items.js';
import { DocumentIndexer } from '../domain/knowledge/indexer.js';
import { IngestRunner, type ItemHandler, type JobLog } from '../domain/knowledge/ingest-runner.js';
import { fileItem, textItem } from '../domain/knowledge/items/content.js';
import { linkItem, pageItem, sitemapItem } from '../domain/knowledge/items/web.js';
import { KnowledgeService } from '../domain/knowledge/knowledge.service.js';
import { createResourceServices } from '../domain/resources/index.js';
import { recordGap } from '../domain/resources/knowledge-gaps.js';
import { captureLead } from '../domain/resources/leads.js';
import { SecretBox } from '../domain/secrets.js';
import { TokensService } from '../domain/tokens.service.js';
import { DeviceFlowService } from '../domain/oauth/device-flow.service.js';
import { AuthorizationCodeService } from '../domain/oauth/authorization-code.service.js';
import { SignInService } from '../domain/oauth/sign-in.service.js';
import { SessionTokens } from '../domain/widget/sessions.js';
import { WidgetService } from '../domain/widget/widget.service.js';
import { createVisitorServices } from '../domain/visitors/index.js';
import { DEFAULT_USER_AGENT, type GuardedHttpClient } from '../outbound/guarded-client.js';
import type { EmbeddedQueue } from '../queue/embedded-queue.js';
import type { Store } from '../domain/ports.js';
import type { Metrics } from '../observability/metrics.js';
import { conversationLog, logAnswer } from './activity-log.js';
import { observeAnswers, observeIngestItem, observeMessages, tracedAnswers } from './observe-services.js';
import { createRetrieval } from '../adapters/retriever.js';
import { createWebhooks } from './webhooks.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

/** What the services are built over: the other plugins' decorations. */
export interface ServiceParts {
  config: Config;
  store: Store;
  outbound: GuardedHttpClient;
  models: GuardedHttpClient;
  queue: EmbeddedQueue;
  /** The app's Prometheus instruments (absent in tests that build services alone). */
  metrics?: Metrics;
  log?: {
    error(obj: unknown, msg: string): void;
    info?(obj: unknown, msg: string): void;
    warn?(obj: unknown, msg: string): void;
  };
}

/** The ingest runner logs through the app's logger when it has info and warn. */
function jobLog(log: ServiceParts['log']): JobLog | undefined {
  const { info, warn } = log ?? {};
  if (!log || !info || !warn) return undefined;
  return {
    info: (fields, message) => info.call(log, fields, message),
    warn: (fields, message) => warn.call(log, fields, message),
  };
}

export function createServices({ config, store, outbound, models, queue, metrics, log }: ServiceParts) {
  const info = log?.info ? { info: log.info.bind(log) } : null;
  const secrets = new SecretBox(config.secretKey);
  const cursors = new CursorCodec(config.secretKey);
  const webhooks = createWebhooks(store, outbound, secrets, config, log, metrics);
  const chatbots = new ChatbotsService(store, cursors, webhooks.checkUrls);
  const fetcher = guardedFetcher(outbound);
  // Hybrid (vectors + words) when EMBEDDING_MODEL is set, else words only; the indexer writes vectors through it.
  const retriever = createRetrieval(store, config, models.fetch, log);
  const indexer = new DocumentIndexer(store, retriever);
  const runner = new IngestRunner(store, queue, fetcher, extractor, indexer, {
    userAgent: DEFAULT_USER_AGENT,
    minCrawlDelayMs: config.crawl.minDelayMs,
    extractLimits: { timeoutMs: config.extractTimeoutMs },
    log: jobLog(log),
    ...(metrics && { onJobEnd: (status) => metrics.ingestJobs.inc({ outcome: status }) }),
  });
  // Each item is a span and a count by its outcome.
  const register = (type: string, handler: ItemHandler) =>
    runner.register(type, observeIngestItem(type, handler, metrics));
  register('page', pageItem);
  register('link', linkItem);
  register('sitemap', sitemapItem);
  register('text', textItem);
  register('file', fileItem);
  register('youtube', youtubeItem(config.youtubeBaseUrl));
  for (const [type, handler] of Object.entries(confluenceItems(secrets, confluenceAdapter))) register(type, handler);
  const knowledge = new KnowledgeService(store, chatbots, runner, cursors, config.crawl, retriever);
  // A language model when an OpenAI-compatible endpoint is configured, else the built-in answerer.
  const answers = createAnswerEngine({
    retriever,
    store: store.answers,
    lexicon: createWordNet(),
    provider: config.openai
      ? createOpenAIProvider({
          baseUrl: config.openai.baseUrl,
          apiKey: config.openai.apiKey || null,
          models: config.answers.models,
          fetch: models.fetchWith({ timeoutMs: streamDeadlineMs(config.answers.timeoutMs) }),
          timeoutMs: config.answers.timeoutMs,
          onError: (err, context) =>
            log?.error({ err, ...context }, 'language model failed; answered with the unavailable reply'),
        })
      : createExtractiveProvider(),
  });
  const conversations = new ConversationsService(
    store,
    chatbots,
    cursors,
    tracedAnswers(answers),
    {
      captureLead: (s, lead) => captureLead(s, lead),
      recordGap: async (s, gap) => void (await recordGap(s, gap)),
      onEvents: (s, conversation, events, chatbot) =>
        webhooks.outbox.fromConversationEvents(s, conversation, events, chatbot),
      checkWebhookUrl: (fields) => webhooks.checkUrls(fields),
      leadCaptured: (s, chatbotId, leadId) => visitors.leads.notify(chatbotId, leadId, s),
    },
    {
      answerLeaseMs: config.answerLeaseMs,
      onError: (err, context) => log?.error({ err, ...context }, 'answering a visitor message failed'),
      onAnswered: (a) => {
        if (info) logAnswer(info, a);
        if (metrics) observeAnswers(metrics, a);
      },
    },
  );
  if (info) conversations.changes.onCommit(conversationLog(info));
  if (metrics) conversations.changes.onCommit(observeMessages(metrics));
  const mailer = createMailer({ ...config.mail, log: { info: (obj, msg) => log?.info?.(obj, msg) } });
  const visitors = createVisitorServices({
    store,
    chatbots,
    conversations,
    queue,
    mailer,
    secrets,
    secretKey: config.secretKey,
    siteUrl: config.siteUrl,
    onLead: (s, lead) => webhooks.outbox.fromLead(s, lead),
  });
  const widget = new WidgetService(store, new SessionTokens(config.secretKey), (sid) =>
    visitors.accounts.isLoggedOut(sid),
  );
  const tokens = new TokensService(store, cursors);
  return {
    store,
    retriever,
    queue,
    outbound,
    models,
    runner,
    accounts: new AccountsService(store),
    tokens,
    /** The OAuth device flow and the verification page's sign-in (domain/oauth/README.md). */
    deviceFlow: new DeviceFlowService(store, tokens, {
      intervalSeconds: config.deviceFlow.intervalSeconds,
      ttlSeconds: config.deviceFlow.codeTtlSeconds,
    }),
    /** The authorization code grant with PKCE for clients that register themselves (MCP clients). */
    authorizationCodes: new AuthorizationCodeService(store, tokens, { issuer: config.siteUrl }),
    signIn: new SignInService(store, { secretKey: config.secretKey }),
    chatbots,
    icons: new IconsService(store, chatbots, config.siteUrl),
    billing: new BillingService(store, cursors, () => conversations.changes.meter.settled()),
    knowledge,
    analytics: new AnalyticsService(store.analytics, chatbots),
    confluence: new ConfluenceService(store, chatbots, knowledge, runner, fetcher, confluenceAdapter, secrets, cursors),
    /** Starters, follow-ups, instructions, personas, custom responses, tags, members, leads, knowledge gaps. */
    resources: createResourceServices(store, chatbots, cursors, {
      // The gap is answered either way; a conversation that cannot take the answer is logged.
      onGapAnswered: (gap, answer, auth) =>
        visitors.gaps
          .answered(gap, answer, auth.user)
          .catch((err) => log?.error({ err, gapId: gap.id }, 'the answer could not be posted into its conversation')),
    }),
    answers,
    /** The visitor-facing side: public widget configuration and visitor sessions. */
    widget,
    conversations,
    mailer,
    /** Visitor accounts (e-mail codes, sessions ended), signed identities, widget leads, gap answers (domain/visitors/README.md). */
    visitors,
    webhooks: webhooks.service(chatbots, cursors),
    webhookDispatcher: webhooks.dispatcher,
  };
}

export type Services = ReturnType<typeof createServices>;

export interface ServicesOptions {
  /** Run the scheduled knowledge sync (default true). */
  schedule?: boolean;
}

/** How often sources are checked for a due scheduled sync. */
const SYNC_CHECK_MS = 60_000;

export default fp<ServicesOptions>(
  async (app, options) => {
    const services = createServices({
      config: app.config,
      store: app.store,
      outbound: app.outbound,
      models: app.models,
      queue: app.queue,
      metrics: app.metrics ?? undefined,
      log: app.log,
    });
    app.decorate('services', services);
    if (!app.config.mail.smtpUrl)
      app.log.info(
        { folder: app.config.mail.folder },
        'SMTP_URL is not set: e-mails are written as .eml files to this folder',
      );
    // Message counts not written yet go to the database before it closes.
    app.addHook('onClose', async () => {
      await services.conversations.changes.meter.settled();
    });
    if (options.schedule === false) return;
    let scheduler: NodeJS.Timeout | null = null;
    let owedTimer: NodeJS.Timeout | null = null;
    app.addHook('onReady', async () => {
      scheduler = setInterval(() => {
        void services.knowledge.syncDue().catch((err) => app.log.error({ err }, 'scheduled sync failed'));
        void services.knowledge
          .sweepUploads()
          .catch((err) => app.log.error({ err }, 'sweeping unclaimed uploads failed'));
      }, SYNC_CHECK_MS);
      scheduler.unref();
      // Answers owed by a process that died are written by the next instance to look (conversations/answering.ts).
      const answerOwed = () =>
        void services.conversations.answering
          .answerOwed()
          .catch((err) => app.log.error({ err }, 'answering owed messages failed'));
      answerOwed();
      owedTimer = setInterval(answerOwed, Math.max(100, Math.floor(app.config.answerLeaseMs / 2)));
      owedTimer.unref();
    });
    app.addHook('onClose', async () => {
      if (scheduler) clearInterval(scheduler);
      if (owedTimer) clearInterval(owedTimer);
    });
  },
  { name: 'services', dependencies: ['storage', 'outbound', 'queue', 'metrics'] },
);
