/**
 * What an application writes with @parley/widget: compiled by types.test.ts against the built
 * package (as an application resolves it). Each `@ts-expect-error` must stay an error: the event
 * details and the commands' arguments are the widget's own types.
 */
import { Parley, type Handler, type WireMessage } from '@parley/widget';

export function wire(setBadge: (n: number) => void, log: (line: string) => void) {
  void Parley.load({ serverUrl: 'https://chat.example.com', chatbotId: 'CHATBOT_ID', theme: 'dark' });
  const stop = Parley.on('message', (m) => log(`${m.author}: ${m.text} (${m.sources.length} sources)`));
  Parley.on('unread', (count) => setBadge(count));
  Parley.on('escalated', ({ conversationId }) => log(conversationId));
  Parley.on('lead', ({ visitor }) => log(visitor.email ?? ''));
  Parley.on('open', () => log('open'));
  const onMessage: Handler<'message'> = (m: WireMessage) => log(m.createdAt);
  Parley.off('message', onMessage);
  stop();

  Parley.identify({ email: 'ada@example.com', signature: 'ab'.repeat(32), name: 'Ada' });
  Parley.setContext({ plan: 'pro', seats: 3 });
  Parley.setLocale('de');
  Parley.setTheme('light');
  Parley.sendMessage('Hello');

  // @ts-expect-error an unread count is a number
  Parley.on('unread', (count: string) => log(count));
  // @ts-expect-error no such event
  Parley.on('opened', () => log('x'));
  // @ts-expect-error a message has no `body`
  Parley.on('message', (m) => log(m.body));
  // @ts-expect-error identify needs the signature
  Parley.identify({ email: 'ada@example.com' });
  // @ts-expect-error themes are auto, light and dark
  Parley.setTheme('blue');
  // @ts-expect-error the hosted page's mode is not for apps
  void Parley.load({ serverUrl: 'https://chat.example.com', chatbotId: 'x', mode: 'page' });
}
