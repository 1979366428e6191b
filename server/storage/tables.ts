/**
 * The one source of every table's types: one file per group under tables/, all exported here.
 * Conventions shared by both dialects: ids are text, timestamps are ISO-8601 UTC text (they sort
 * and compare as strings), booleans are 0/1 integers, JSON is text. Dialect differences (blob
 * type, bytewise id collation) live only in storage/dialects and the migrations.
 */
import type { AccountsDatabase } from './tables/accounts.js';
import type { ConversationsDatabase } from './tables/conversations.js';
import type { KnowledgeDatabase } from './tables/knowledge.js';
import type { OAuthDatabase } from './tables/oauth.js';
import type { VisitorsDatabase } from './tables/visitors.js';
import type { WebhooksDatabase } from './tables/webhooks.js';

export type * from './tables/accounts.js';
export type * from './tables/conversations.js';
export type * from './tables/knowledge.js';
export type * from './tables/oauth.js';
export type * from './tables/visitors.js';
export type * from './tables/webhooks.js';

/** Every table of the schema, for kysely. */
export interface Database
  extends
    AccountsDatabase,
    KnowledgeDatabase,
    ConversationsDatabase,
    VisitorsDatabase,
    WebhooksDatabase,
    OAuthDatabase {}
