/**
 * `npm run demo`: starts the server as `npm start` does (same configuration, migrations, signals
 * and start-up errors: server/serve.ts), seeds a chatbot with sample knowledge and starters when
 * none is there yet, mints an API token for the playground, and prints where to go.
 */
import { serve } from '../server/serve.js';
import { widgetIsStale } from '../scripts/stale.mjs';
import { buildWidget } from '../widget/build.js';
import { embedSnippet, encodeBubble } from '../widget/loader/snippet-look.js';
import { SAMPLE, STARTERS } from './sample.js';

if (widgetIsStale()) await buildWidget();
const { app, config } = await serve({ command: 'npm run demo' });
const account = await app.services.accounts.resolve(undefined);
const owner = await app.services.store.users.owner(account.id);
const { token } = await app.services.tokens.create(owner!, { access: 'full', name: 'demo playground' } as never);
const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
  const res = await app.inject({
    method,
    url: `/api/v2${url}`,
    headers: { authorization: `Bearer ${token}` },
    ...(body ? { payload: body as object } : {}),
  });
  return res.json().data;
};
const existing = (await call('GET', '/chatbots?limit=100')).chatbots.find(
  (b: { title: string }) => b.title === 'Garden Supply Co.',
);
let chatbotId: string = existing?.id;
if (!chatbotId) {
  chatbotId = (
    await call('POST', '/chatbots', {
      title: 'Garden Supply Co.',
      settings: {
        appearance: { welcomeMessage: 'Hi! Ask me about delivery, returns or watering.', brandColor: '#2e7d32' },
      },
    })
  ).chatbot.id;
  await call('POST', `/chatbots/${chatbotId}/knowledge/text`, { title: 'Help centre', text: SAMPLE });
  for (const [title, description] of STARTERS) {
    await call('POST', `/chatbots/${chatbotId}/starters`, { title, description });
  }
}
// The snippet as the playground gives it: with the bubble's look.
const publicConfig = (await app.inject({ method: 'GET', url: `/api/widget/${chatbotId}/config` })).json().data;
console.log(`\nParley demo running at ${config.siteUrl}
  Playground and agent console: ${config.siteUrl}/demo?chatbot=${chatbotId}
  Hosted chat page:             ${config.siteUrl}/chat/${chatbotId}
  API token (shown once): ${token}
    Paste it into the playground's "API token" field; it stays in that browser tab only.
  Embed: ${embedSnippet(config.siteUrl, chatbotId, encodeBubble(publicConfig))}
Ctrl+C to stop.`);
