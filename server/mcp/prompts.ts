/**
 * MCP prompts: ready-made requests an owner picks in their agent. Each reads the data it needs
 * (with the scopes of the routes that read it) and hands the model that data and the task.
 */
import { missingScopes } from '../domain/auth.js';
import type { ToolContext } from './tools.js';

export const PROMPTS = [
  {
    name: 'summarise_escalations',
    title: "Summarise today's escalations",
    description:
      'The conversations of a chatbot started today (UTC) in which the visitor asked for a person, with their messages, and a request to summarise them: who needs what, what is still open, what to do first.',
    arguments: [{ name: 'chatbotId', description: 'The chatbot (list_chatbots gives the ids)', required: true }],
  },
  {
    name: 'draft_gap_answer',
    title: 'Draft an answer for a knowledge gap',
    description:
      'A question the chatbot could not answer, the passages of its knowledge closest to it, and a request to draft an answer for the owner to approve (then answer_knowledge_gap saves it).',
    arguments: [
      { name: 'chatbotId', description: 'The chatbot (list_chatbots gives the ids)', required: true },
      { name: 'gapId', description: 'The knowledge gap (list_knowledge_gaps gives the ids)', required: true },
    ],
  },
] as const;

/** Escalated conversations read into one prompt, and messages read of each. */
const MAX_CONVERSATIONS = 20;
const MAX_MESSAGES = 30;

const user = (text: string) => ({ role: 'user' as const, content: { type: 'text' as const, text } });

async function summariseEscalations(ctx: ToolContext, chatbotId: string) {
  ctx.require('GET /chatbots/:chatbotId/conversations');
  ctx.require('GET /chatbots/:chatbotId/conversations/:threadId/messages');
  const { team } = ctx.services.conversations;
  const today = new Date();
  today.setUTCHours(0, 0, 0, 0);
  const page = await team.list(ctx.auth, chatbotId, {
    limit: MAX_CONVERSATIONS,
    escalated: true,
    from: today.toISOString(),
  });
  const blocks = await Promise.all(
    page.conversations.map(async (c) => {
      const { messages } = await team.messages(ctx.auth, chatbotId, c.threadId, MAX_MESSAGES);
      const who = c.chatUser ? [c.chatUser.name, c.chatUser.email, c.chatUser.phone].filter(Boolean).join(', ') : '';
      const lines = messages.map((m) => `  [${m.author}] ${m.text}`).join('\n');
      return `Conversation ${c.threadId} (status ${c.status}, mode ${c.mode}${who ? `, visitor ${who}` : ''}, started ${c.startedAt}):\n${lines}`;
    }),
  );
  const more = page.nextCursor ? `\n(Only the newest ${MAX_CONVERSATIONS} are shown; there are more.)` : '';
  const text = blocks.length
    ? `These are today's escalated conversations of chatbot ${chatbotId}: visitors who asked for a person.\n\n${blocks.join('\n\n')}${more}\n\nSummarise them for the support team: for each, who the visitor is, what they need and whether someone from the team has answered; then list what to do first. Tools that act on a conversation: reply_to_conversation, take_over_conversation, hand_back_conversation, resolve_conversation (with chatbotId ${chatbotId} and the conversation's threadId).`
    : `No conversation of chatbot ${chatbotId} started today (since ${today.toISOString()}) is escalated. Say so in one sentence.`;
  return { description: `Today's escalations of chatbot ${chatbotId}`, messages: [user(text)] };
}

async function draftGapAnswer(ctx: ToolContext, chatbotId: string, gapId: string) {
  ctx.require('GET /chatbots/:chatbotId/knowledge-gaps/:gapId');
  const gap = await ctx.services.resources.knowledgeGaps.get(ctx.auth, chatbotId, gapId);
  // The passages help; a token that may not read the knowledge still gets the question.
  const canSearch = !missingScopes(ctx.auth, ctx.scopes('GET /chatbots/:chatbotId/knowledge/search')).length;
  const passages = canSearch ? await ctx.services.knowledge.search(ctx.auth, chatbotId, gap.question, 5) : [];
  const context = passages.length
    ? `The passages of the chatbot's knowledge closest to the question:\n\n${passages
        .map((p, i) => `[${i + 1}] ${p.title}${p.url ? ` (${p.url})` : ''}\n${p.text}`)
        .join('\n\n')}`
    : canSearch
      ? "The chatbot's knowledge has no passage on this question."
      : "(This token may not read the chatbot's knowledge, so no passages are shown.)";
  const text = `A visitor asked chatbot ${chatbotId} a question it could not answer from its knowledge:\n\n"${gap.question}"\n\n${context}\n\nDraft a short, friendly answer the chatbot could give the next visitor who asks this. Use only facts from the passages above or that the owner gives you; where a fact is missing, leave a clear placeholder and say what is needed. Show the draft to the owner; once they approve it, save it with answer_knowledge_gap (chatbotId ${chatbotId}, gapId ${gap.id}).`;
  return { description: `Draft an answer for: ${gap.question}`, messages: [user(text)] };
}

/** The prompt `name` with its arguments, or null when there is no such prompt. */
export async function getPrompt(ctx: ToolContext, name: string, args: Record<string, string>) {
  if (name === 'summarise_escalations') return summariseEscalations(ctx, args.chatbotId);
  if (name === 'draft_gap_answer') return draftGapAnswer(ctx, args.chatbotId, args.gapId);
  return null;
}
