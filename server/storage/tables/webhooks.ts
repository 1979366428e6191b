/** Webhooks: the outbox, targets and their signing secrets. */
import type { Generated } from 'kysely';

/** The webhook outbox: one row per event and target; `id` is the stable `webhook-id`. */
export interface WebhookDeliveriesTable {
  id: string;
  chatbot_id: string;
  conversation_id: string | null;
  event: string; // message | escalation | lead
  variant: string; // A | B
  target_url: string;
  target_source: string; // thread | event | global | test
  token: string | null; // sealed (AES-256-GCM), bound to the delivery id
  body: string; // the exact bytes sent and signed
  status: string; // pending | delivered | failed | skipped
  attempts: Generated<number>; // attempts of the current round (the retry schedule)
  total_attempts: Generated<number>;
  next_attempt_at: string | null;
  lease_until: string | null;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookTargetsTable {
  chatbot_id: string;
  url: string;
  consecutive_failures: Generated<number>;
  disabled_at: string | null;
  disabled_reason: string | null;
  updated_at: string;
}

export interface WebhookSecretsTable {
  chatbot_id: string;
  secret: string; // sealed
  created_at: string;
  previous_secret: string | null; // sealed; still signs until previous_until
  previous_until: string | null;
}

export interface WebhooksDatabase {
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_targets: WebhookTargetsTable;
  webhook_secrets: WebhookSecretsTable;
}
