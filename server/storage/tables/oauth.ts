/** OAuth: device codes, the owner's password and sessions, sign-in throttles. */

/** The OAuth device flow and the verification page's sign-in (migration 0019). */
export interface OAuthDatabase {
  oauth_device_codes: {
    id: string;
    device_code_hash: string;
    user_code_hash: string;
    client_id: string;
    scopes: string | null; // JSON array; null = none asked for (Standard)
    chatbot_ids: string | null; // JSON array; null = every chatbot
    status: string; // pending | approved | denied | issued
    user_id: string | null;
    interval_seconds: number;
    last_polled_at: string | null;
    expires_at: string;
    created_at: string;
    decided_at: string | null;
    token_id: string | null;
  };
  user_passwords: { user_id: string; password_hash: string; updated_at: string };
  owner_sessions: {
    session_hash: string;
    user_id: string;
    created_at: string;
    expires_at: string;
    /** Migration 0028; null: not used since it was created. */
    last_seen_at: string | null;
  };
  auth_throttle: { key: string; failures: number; window_started_at: string };
  /** Migration 0030: clients registered by themselves (RFC 7591). */
  oauth_clients: {
    client_id: string;
    client_name: string;
    redirect_uris: string; // JSON array
    client_uri: string | null;
    created_at: string;
    /** Null: no token was ever issued to it (such clients are purged after a day). */
    last_used_at: string | null;
  };
  oauth_authorization_codes: {
    id: string;
    code_hash: string;
    client_id: string;
    user_id: string;
    redirect_uri: string;
    code_challenge: string;
    scopes: string; // JSON array of the granted scopes
    resource: string | null;
    expires_at: string;
    created_at: string;
    used_at: string | null;
    token_id: string | null;
  };
}
