/** Visitors: e-mail codes, throttles, identity secrets, revoked sessions, knowledge-gap deliveries. */
import type { Generated } from 'kysely';

export interface VisitorCodesTable {
  id: string;
  chatbot_id: string;
  email: string;
  code_hash: string; // HMAC-SHA256 hex; the code itself is never stored
  name: string | null;
  phone: string | null;
  attempts: Generated<number>;
  expires_at: string;
  consumed_at: string | null;
  created_at: string;
}

export interface VisitorsDatabase {
  visitor_codes: VisitorCodesTable;
  visitor_throttle: { key: string; count: number; expires_at: string };
  identity_secrets: { chatbot_id: string; sealed: string; created_at: string };
  visitor_session_revocations: { session_id: string; chat_user_id: string; expires_at: string };
  knowledge_gap_deliveries: {
    gap_id: string;
    conversation_id: string;
    message_id: string | null;
    emailed_at: string | null;
    created_at: string;
  };
}
