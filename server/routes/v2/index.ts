/** Every v2 route, one file per resource, mounted under /api/v2. */
import type { FastifyInstance } from 'fastify';
import account from './account.js';
import analytics from './analytics.js';
import chatbots from './chatbots.js';
import confluence from './confluence.js';
import conversations from './conversations.js';
import health from './health.js';
import icons from './icons.js';
import identity from './identity.js';
import installCheck from './install-check.js';
import knowledge from './knowledge.js';
import me from './me.js';
import session from './session.js';
import settings from './settings.js';
import stream from './stream.js';
import tokens from './tokens.js';
import customResponses from './custom-responses.js';
import followups from './followups.js';
import instructions from './instructions.js';
import knowledgeGaps from './knowledge-gaps.js';
import leads from './leads.js';
import members from './members.js';
import personas from './personas.js';
import starters from './starters.js';
import tagRoutes from './tags.js';
import { endpoint } from '../../http/route.js';
import webhooks from './webhooks.js';

export async function v2Routes(app: FastifyInstance) {
  app.get('/openapi.json', endpoint({ access: { public: true }, raw: true, hide: true }), async () => app.swagger());
  app.get('/openapi.yaml', endpoint({ access: { public: true }, raw: true, hide: true }), async (_request, reply) =>
    reply.type('application/yaml; charset=utf-8').send(app.swagger({ yaml: true })),
  );
  for (const routes of [
    health,
    session,
    me,
    chatbots,
    settings,
    webhooks,
    identity,
    installCheck,
    icons,
    tokens,
    account,
    analytics,
    knowledge,
    confluence,
    conversations,
    stream,
  ])
    await app.register(routes);
  // The owner's resources: starters, follow-ups, instructions, personas, custom responses, tags, members, leads, gaps.
  for (const routes of [
    starters,
    followups,
    instructions,
    personas,
    customResponses,
    tagRoutes,
    members,
    leads,
    knowledgeGaps,
  ])
    await app.register(routes);
}
