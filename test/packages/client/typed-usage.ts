/**
 * What an application writes with @parley/client, typed against the generated types: the type
 * test compiles it against types freshly generated from the live document (a renamed or removed
 * field, operation or error code is a compile error), and the client test runs it on the app.
 */
import { ParleyError, type ParleyClient, type Schemas } from '@parley/client';

export async function tour(parley: ParleyClient) {
  const { chatbot } = await parley.POST('/chatbots', { body: { title: 'Typed tour' } });
  const created: Schemas['Chatbot'] = chatbot;
  const createdAt: string = created.createdAt;
  const mode: string | null = created.settings.mode;

  const one = await parley.GET('/chatbots/{chatbotId}', { params: { path: { chatbotId: chatbot.id } } });
  const title: string = one.chatbot.title;

  const started = await parley.POST('/chatbots/{chatbotId}/messages', {
    params: { path: { chatbotId: chatbot.id } },
    body: { message: 'Hello there' },
  });
  const threadId: string = started.conversation.threadId;
  const status: 'OPEN' | 'RESOLVED' = started.conversation.status;
  const answer: string | null = started.answer?.text ?? null;

  const texts: string[] = [];
  const authors: Array<'visitor' | 'ai' | 'agent' | 'system'> = [];
  for await (const message of parley.paginate('/chatbots/{chatbotId}/conversations/{threadId}/messages', {
    params: { path: { chatbotId: chatbot.id, threadId } },
  })) {
    texts.push(message.text);
    authors.push(message.author);
  }

  const titles: string[] = [];
  for await (const page of parley.pages('/chatbots', { params: { query: { limit: 10 } } })) {
    const more: boolean = page.pagination.hasNextPage;
    titles.push(...page.chatbots.map((c) => c.title));
    if (!more) break;
  }

  let missing: ParleyError['code'] | null = null;
  try {
    await parley.GET('/chatbots/{chatbotId}', { params: { path: { chatbotId: 'nope' } } });
  } catch (err) {
    if (!(err instanceof ParleyError) || err.code !== 'CHATBOT_NOT_FOUND') throw err;
    missing = err.code;
  }

  return { id: chatbot.id, createdAt, mode, title, threadId, status, answer, texts, authors, titles, missing };
}
