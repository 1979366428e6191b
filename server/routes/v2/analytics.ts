import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { ChatbotParams } from './schemas.js';
import { endpoint } from '../../http/route.js';
import { nullable, one } from './resource-schemas.js';

const Count = Type.Integer();
const Messages = Type.Object({ total: Count, visitor: Count, ai: Count, agent: Count });
const Answers = Type.Object(
  {
    answered: Count,
    notSure: Count,
    refused: Count,
  },
  {
    description:
      "The AI's answers: `answered`, `notSure` (answered, saying it is not sure the knowledge covers it; counted for answers written since this figure exists, older hedged answers are in `answered`) and `refused` (the knowledge had no answer: a knowledge gap). Replies written when no model could answer are in none",
  },
);
const Day = Type.Object({
  date: Type.String({ description: 'The calendar day in `timezone`, YYYY-MM-DD' }),
  conversations: Count,
  messages: Messages,
  answers: Answers,
  escalations: Count,
  leads: Count,
});
const Analytics = Type.Object({
  chatbotId: Type.String(),
  range: Type.Object({ from: Type.String(), to: Type.String() }),
  timezone: Type.String({ description: 'The IANA time zone the `days` are calendar days of' }),
  conversations: Count,
  resolvedConversations: Count,
  messages: Messages,
  answers: Answers,
  escalations: Count,
  takeOvers: Count,
  handBacks: Count,
  resolutions: Count,
  leads: Count,
  feedback: Type.Object({ up: Count, down: Count }),
  unansweredQuestions: Count,
  satisfaction: nullable(
    Type.Number({ description: 'Share of rated answers rated up (0 to 1, three decimals); null when none was rated' }),
  ),
  topSources: Type.Array(
    Type.Object({ documentId: Type.String(), title: Type.String(), url: nullable(Type.String()), citations: Count }),
  ),
  topQuestions: Type.Array(
    Type.Object({
      question: Type.String({ description: 'The newest wording asked (its first 300 characters)' }),
      count: Count,
      answered: Type.Integer({ description: 'How many of them the AI answered (a "not sure" answer counts)' }),
    }),
    {
      description:
        "The 10 visitor messages asked most in the range, counted without regard to case, punctuation, apostrophes and spacing, most first (ties: the most recently asked first). Counted over the range's newest 20,000 visitor messages",
    },
  ),
  days: Type.Array(Day, {
    description:
      'One entry per calendar day of `timezone` that the range touches, oldest first, days with nothing included; the first and last days hold only the part inside the range. They add up to the totals',
  }),
});

export default async function analytics(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/chatbots/:chatbotId/analytics',
    endpoint({
      access: { scopes: ['chatbots:read'] },
      data: one('analytics', Analytics),
      tags: ['analytics'],
      summary: "A chatbot's figures over a date range, in total and per day (default: the last 30 days, at most 366)",
      description:
        'Conversations, messages by author, answered / not sure / refused answers, escalations, take-overs, hand-backs, resolutions, leads, answer feedback and satisfaction, unanswered questions, the 10 most cited sources and the 10 questions visitors asked most, all in the range [from, to). `days` breaks conversations, messages, answers, escalations and leads down by calendar day of `timezone` (UTC unless given), so a chart of a range takes one call. 400 VALIDATION_FAILED when `from` is after `to`, the range is over 366 days or `timezone` is not an IANA time zone; 403 ANALYTICS_LOCKED when the plan lacks analytics.',
      params: ChatbotParams,
      querystring: Type.Object(
        {
          from: Type.Optional(Type.String({ format: 'date-time' })),
          to: Type.Optional(Type.String({ format: 'date-time' })),
          timezone: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 64,
              description: 'IANA time zone of the `days` (e.g. `Europe/Paris`); default `UTC`',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => ({
      analytics: await app.services.analytics.get(request.auth, request.params.chatbotId, request.query),
    }),
  );
}
