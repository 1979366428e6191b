/** The domain services, built once per app over one Store. */
import type { Config } from '../config.js';
import { AccountsService } from '../domain/accounts.service.js';
import { BillingService } from '../domain/billing.service.js';
import { ChatbotsService } from '../domain/chatbots.service.js';
import { CursorCodec } from '../domain/cursor.js';
import { IconsService } from '../domain/icons.service.js';
import { TokensService } from '../domain/tokens.service.js';
import type { DatabaseHandle } from '../storage/dialects/index.js';
import { createStore } from '../storage/store.js';

export function createServices(database: DatabaseHandle, config: Config) {
  const store = createStore(database.db);
  const cursors = new CursorCodec(config.secretKey);
  const chatbots = new ChatbotsService(store, cursors);
  return {
    store,
    accounts: new AccountsService(store),
    tokens: new TokensService(store, cursors),
    chatbots,
    icons: new IconsService(store, chatbots, config.siteUrl),
    billing: new BillingService(store, cursors),
  };
}

export type Services = ReturnType<typeof createServices>;
