/** Where the visitor's session token and open conversation are kept (transport/session.ts: localStorage). */
export interface SessionStore {
  read(): { token: string; conversationId: string | null } | null;
  write(patch: { conversationId?: string | null; token?: string; expiresAt?: string }): void;
  clear(): void;
}
