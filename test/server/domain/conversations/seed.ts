/** An account, its owner and a chatbot stored directly, for the conversation parts' own tests. */
import { newId, nowIso } from '../../../../server/domain/ids.js';
import type { ChatbotRecord, Store } from '../../../../server/domain/ports.js';

export async function seedChatbot(store: Store, settings: Record<string, unknown> = {}): Promise<ChatbotRecord> {
  const at = nowIso();
  const accountId = newId();
  const plan = {
    name: 't',
    maxChatbots: 9,
    maxPages: 9,
    webhooks: true,
    analytics: true,
    brandingRemoval: true,
    active: true,
  };
  await store.accounts.insert({ id: accountId, name: 'a', plan, createdAt: at, updatedAt: at });
  const ownerId = newId();
  await store.users.insert({
    id: ownerId,
    accountId,
    email: `${ownerId.toLowerCase()}@x.test`,
    name: null,
    role: 'owner',
    createdAt: at,
  });
  const bot: ChatbotRecord = {
    id: newId(),
    accountId,
    createdById: ownerId,
    title: 'Shop',
    description: '',
    settings,
    createdAt: at,
    updatedAt: at,
  };
  await store.chatbots.insert(bot);
  return bot;
}
