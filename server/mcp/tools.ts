/**
 * The MCP tools: each stands for one v2 route (`route`), whose scopes it needs and whose request
 * schema it takes (mirror.ts), and calls the domain service that route calls. Descriptions are
 * written for an AI agent: what the tool does, what the ids are and where they come from.
 */
import type { Scope } from '../../shared/scopes.js';
import type { AuthContext } from '../domain/auth.js';
import type { Services } from '../plugins/services.js';
import type { MirrorOptions, RouteKey } from './mirror.js';

export interface ToolContext {
  services: Services;
  auth: AuthContext;
  /** The scopes a v2 route declares. */
  scopes(route: RouteKey): Scope[];
  /** Checks the scopes of another route the tool also stands for (throws TOKEN_SCOPE_NOT_ALLOWED). */
  require(route: RouteKey): void;
}

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolSpec<A = never> extends MirrorOptions {
  name: string;
  title: string;
  description: string;
  route: RouteKey;
  annotations: ToolAnnotations;
  run(ctx: ToolContext, args: A): Promise<unknown>;
}

const tool = <A>(spec: ToolSpec<A>) => spec as unknown as ToolSpec<Record<string, unknown>>;

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
/** Adding knowledge fetches pages from the web. */
const FETCHES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: true };

const CHATBOT = 'chatbotId is the id list_chatbots gives.';
const THREAD = 'threadId is the conversation id list_conversations gives.';
const JOB =
  'Returns the ingest job it started; follow it with get_ingest_job until its status is succeeded, partially_succeeded, failed or cancelled.';
const PAGED = 'Pass nextCursor back as cursor for the next page (null: no more).';

type Page = { limit: number; cursor?: string };
type Chatbot = { chatbotId: string };
type Thread = Chatbot & { threadId: string };
const iso = (d?: string) => (d ? new Date(d).toISOString() : undefined);

export const TOOLS = [
  tool<Page>({
    name: 'list_chatbots',
    title: 'List chatbots',
    description: `The chatbots this token can reach, most recently added first: id, title, description and settings. ${PAGED}`,
    route: 'GET /chatbots',
    annotations: READ,
    run: ({ services, auth }, a) => services.chatbots.list(auth, a.limit, a.cursor),
  }),
  tool<Chatbot>({
    name: 'get_chatbot',
    title: 'Get a chatbot',
    description: `One chatbot with every settings field. ${CHATBOT}`,
    route: 'GET /chatbots/:chatbotId',
    annotations: READ,
    run: async ({ services, auth }, a) => ({ chatbot: await services.chatbots.get(auth, a.chatbotId) }),
  }),
  tool<Chatbot & { message: string; threadId?: string }>({
    name: 'ask_chatbot',
    title: 'Ask a chatbot',
    description: `Ask a chatbot a question as a visitor would and get its answer with the sources it cites (title, url, link to the place). The question and answer are stored as a conversation (it shows in list_conversations); pass the threadId it returns to ask a follow-up in the same conversation. The answer is null when the chatbot does not answer (human-only chat mode, or the conversation is taken over). ${CHATBOT}`,
    route: 'POST /chatbots/:chatbotId/messages',
    omit: ['visitor'],
    extra: {
      threadId: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        description: 'Continue this conversation (from an earlier ask_chatbot) instead of starting one',
      },
    },
    annotations: WRITE,
    run: async ({ services, auth, require }, a) => {
      const { visitors } = services.conversations;
      let result;
      if (a.threadId) {
        require('POST /chatbots/:chatbotId/conversations/:threadId/messages');
        result = await visitors.sendVisitorMessage(auth, a.chatbotId, a.threadId, { message: a.message });
      } else result = await visitors.start(auth, a.chatbotId, { message: a.message });
      const answer = result.answer;
      return {
        threadId: result.message.threadId,
        question: result.message.text,
        answer: answer && { id: answer.id, text: answer.text, sources: answer.sources },
      };
    },
  }),
  tool<Chatbot & Record<string, unknown>>({
    name: 'add_website',
    title: 'Crawl a website into a chatbot',
    description: `Crawl a website from a start URL into the chatbot's knowledge: same origin only (optionally under pathPrefix), robots.txt honoured, its sitemaps followed. ${JOB} ${CHATBOT}`,
    route: 'POST /chatbots/:chatbotId/knowledge/website',
    annotations: FETCHES,
    run: ({ services, auth }, { chatbotId, ...body }) =>
      services.knowledge.addWebsite(auth, chatbotId, body as { url: string }),
  }),
  tool<Chatbot & Record<string, unknown>>({
    name: 'add_sitemap',
    title: 'Import a sitemap into a chatbot',
    description: `Import the pages a sitemap (or sitemap index, gzip too) lists into the chatbot's knowledge. ${JOB} ${CHATBOT}`,
    route: 'POST /chatbots/:chatbotId/knowledge/sitemap',
    annotations: FETCHES,
    run: ({ services, auth }, { chatbotId, ...body }) =>
      services.knowledge.addSitemap(auth, chatbotId, body as { url: string }),
  }),
  tool<Chatbot & { urls: string[] }>({
    name: 'add_links',
    title: 'Add pages by URL to a chatbot',
    description: `Add single pages (HTML, PDF, DOCX, text) by URL to the chatbot's knowledge; a URL it already has is updated. ${JOB} ${CHATBOT}`,
    route: 'POST /chatbots/:chatbotId/knowledge/links',
    annotations: FETCHES,
    run: ({ services, auth }, a) => services.knowledge.addLinks(auth, a.chatbotId, a.urls),
  }),
  tool<Chatbot & { title: string; text: string }>({
    name: 'add_text',
    title: 'Add text to a chatbot',
    description: `Add a piece of text (Markdown headings structure it) to the chatbot's knowledge, e.g. an FAQ or a policy. ${JOB} ${CHATBOT}`,
    route: 'POST /chatbots/:chatbotId/knowledge/text',
    annotations: WRITE,
    run: ({ services, auth }, a) => services.knowledge.addText(auth, a.chatbotId, { title: a.title, text: a.text }),
  }),
  tool<Chatbot & { jobId: string }>({
    name: 'get_ingest_job',
    title: 'Get an ingest job',
    description: `The progress of an ingest job started by add_website, add_sitemap, add_links or add_text: status (queued, running, succeeded, partially_succeeded, failed, cancelled), counts of pages found, done and failed, and per-URL errors. ${CHATBOT}`,
    route: 'GET /chatbots/:chatbotId/ingest-jobs/:jobId',
    annotations: READ,
    run: async ({ services, auth }, a) => ({ job: await services.knowledge.job(auth, a.chatbotId, a.jobId) }),
  }),
  tool<Chatbot & { q: string; limit: number }>({
    name: 'search_documents',
    title: "Search a chatbot's documents",
    description: `Search the chatbot's indexed knowledge for q and get the best passages, best first (document id, title, url, headings, text). The same retrieval the chatbot answers from, so it shows what the chatbot knows about a topic. ${CHATBOT}`,
    route: 'GET /chatbots/:chatbotId/knowledge/search',
    annotations: READ,
    run: async ({ services, auth }, a) => ({
      passages: await services.knowledge.search(auth, a.chatbotId, a.q, a.limit),
    }),
  }),
  tool<Chatbot & Page & Record<string, unknown>>({
    name: 'list_conversations',
    title: 'List conversations',
    description: `A chatbot's conversations, newest first, each with its visitor, mode (AI or AGENT: taken over by the team), status (OPEN or RESOLVED), whether it is escalated (the visitor asked for a person) and its last message. Filters: status, mode, escalated, tagId, from and to (ISO date-times bounding when it started). ${PAGED} ${CHATBOT}`,
    route: 'GET /chatbots/:chatbotId/conversations',
    annotations: READ,
    run: ({ services, auth }, { chatbotId, from, to, ...q }) =>
      services.conversations.team.list(auth, chatbotId, {
        ...(q as Page),
        from: iso(from as string | undefined),
        to: iso(to as string | undefined),
      }),
  }),
  tool<Thread & Page>({
    name: 'get_conversation',
    title: 'Read a conversation',
    description: `A conversation and its messages, oldest first (author visitor, ai, agent or system; AI answers with their sources). ${PAGED} ${CHATBOT} ${THREAD}`,
    route: 'GET /chatbots/:chatbotId/conversations/:threadId/messages',
    annotations: READ,
    run: async ({ services, auth, require }, a) => {
      require('GET /chatbots/:chatbotId/conversations/:threadId');
      const { team } = services.conversations;
      const { conversation } = await team.get(auth, a.chatbotId, a.threadId);
      return { conversation, ...(await team.messages(auth, a.chatbotId, a.threadId, a.limit, a.cursor)) };
    },
  }),
  tool<Thread & { message: string }>({
    name: 'reply_to_conversation',
    title: 'Reply to a visitor as the team',
    description: `Send a message to the visitor as a team member (the token's user). In AI mode the reply takes the conversation over first, so the AI stops answering until hand_back_conversation. Fails with CONVERSATION_CLOSED when it is resolved. ${CHATBOT} ${THREAD}`,
    route: 'POST /chatbots/:chatbotId/conversations/:threadId/replies',
    annotations: WRITE,
    run: ({ services, auth }, a) =>
      services.conversations.team.reply(auth, a.chatbotId, a.threadId, { message: a.message }),
  }),
  tool<Thread>({
    name: 'take_over_conversation',
    title: 'Take a conversation over',
    description: `The token's user takes the conversation over (mode AGENT): the AI stops answering the visitor. ${CHATBOT} ${THREAD}`,
    route: 'POST /chatbots/:chatbotId/conversations/:threadId/take-over',
    annotations: { ...WRITE, idempotentHint: true },
    run: ({ services, auth }, a) => services.conversations.team.takeOver(auth, a.chatbotId, a.threadId),
  }),
  tool<Thread>({
    name: 'hand_back_conversation',
    title: 'Hand a conversation back to the AI',
    description: `Hand the conversation back to the AI (mode AI, escalation cleared): the AI answers the visitor's next message. ${CHATBOT} ${THREAD}`,
    route: 'POST /chatbots/:chatbotId/conversations/:threadId/switch-to-ai',
    annotations: { ...WRITE, idempotentHint: true },
    run: ({ services, auth }, a) => services.conversations.team.switchToAi(auth, a.chatbotId, a.threadId),
  }),
  tool<Thread>({
    name: 'resolve_conversation',
    title: 'Resolve a conversation',
    description: `Mark the conversation resolved (status RESOLVED); a visitor's new message reopens it. ${CHATBOT} ${THREAD}`,
    route: 'PATCH /chatbots/:chatbotId/conversations/:threadId',
    parts: ['params'],
    annotations: { ...WRITE, idempotentHint: true },
    run: ({ services, auth }, a) =>
      services.conversations.team.patch(auth, a.chatbotId, a.threadId, { status: 'RESOLVED' }),
  }),
  tool<Chatbot & Page & { answered?: boolean }>({
    name: 'list_knowledge_gaps',
    title: 'List knowledge gaps',
    description: `Questions visitors asked that the chatbot could not answer from its knowledge, newest first; answered: false lists the open ones. Answer one with answer_knowledge_gap, or add the missing knowledge. ${PAGED} ${CHATBOT}`,
    route: 'GET /chatbots/:chatbotId/knowledge-gaps',
    annotations: READ,
    run: ({ services, auth }, { chatbotId, ...q }) => services.resources.knowledgeGaps.list(auth, chatbotId, q),
  }),
  tool<Chatbot & { gapId: string; answer: string }>({
    name: 'answer_knowledge_gap',
    title: 'Answer a knowledge gap',
    description: `Answer a question the chatbot could not: the answer becomes a custom response, given verbatim to the next visitor who asks it, and the gap is marked answered. gapId comes from list_knowledge_gaps. ${CHATBOT}`,
    route: 'POST /chatbots/:chatbotId/knowledge-gaps/:gapId/answer',
    annotations: { ...WRITE, idempotentHint: true },
    run: ({ services, auth }, a) => services.resources.knowledgeGaps.answer(auth, a.chatbotId, a.gapId, a.answer),
  }),
  tool<Chatbot & Page & { from?: string; to?: string }>({
    name: 'list_leads',
    title: 'List leads',
    description: `Contact details (e-mail, name, phone) visitors left in conversations, newest first; from and to (ISO date-times) bound when they were captured. ${PAGED} ${CHATBOT}`,
    route: 'GET /chatbots/:chatbotId/leads',
    annotations: READ,
    run: ({ services, auth }, { chatbotId, from, to, ...q }) =>
      services.resources.leads.list(auth, chatbotId, { ...q, from: iso(from), to: iso(to) }),
  }),
  tool<Chatbot & { from?: string; to?: string; timezone?: string }>({
    name: 'get_analytics',
    title: "Get a chatbot's analytics",
    description: `A chatbot's figures between from and to (ISO date-times; default the last 30 days, at most 366): conversations, messages by author, answered / not sure / refused answers, escalations, take-overs, resolutions, leads, answer feedback and satisfaction, unanswered questions, the most cited sources, the questions visitors asked most, and per calendar day of timezone (IANA, default UTC) conversations, messages, answers, escalations and leads. ${CHATBOT}`,
    route: 'GET /chatbots/:chatbotId/analytics',
    annotations: READ,
    run: async ({ services, auth }, { chatbotId, ...range }) => ({
      analytics: await services.analytics.get(auth, chatbotId, range),
    }),
  }),
];
