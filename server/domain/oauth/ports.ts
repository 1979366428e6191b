/** What the device flow and the sign-in need from storage (implemented in storage/oauth.repository.ts). */
import type { Scope } from '../../../shared/scopes.js';

export type DeviceCodeStatus = 'pending' | 'approved' | 'denied' | 'issued';

export interface DeviceCodeRecord {
  id: string;
  clientId: string;
  /** Null: the client asked for no scope (the token gets Standard access). */
  scopes: Scope[] | null;
  chatbotIds: string[] | null;
  status: DeviceCodeStatus;
  userId: string | null;
  intervalSeconds: number;
  lastPolledAt: string | null;
  expiresAt: string;
  createdAt: string;
  tokenId: string | null;
}

/** A client that registered itself (RFC 7591): public, no secret. */
export interface OAuthClientRecord {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  clientUri: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

/** An authorization code (RFC 6749 4.1), bound to its client, redirect URI and PKCE challenge. */
export interface AuthorizationCodeRecord {
  id: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  /** BASE64URL(SHA-256(code_verifier)), S256 only. */
  codeChallenge: string;
  /** The scopes granted: asked for and allowed by the user's role. */
  scopes: Scope[];
  resource: string | null;
  expiresAt: string;
  createdAt: string;
  usedAt: string | null;
  tokenId: string | null;
}

export interface UserCredentials {
  userId: string;
  accountId: string;
  email: string;
  passwordHash: string;
}

export interface OAuthStore {
  deviceCodes: {
    insert(record: DeviceCodeRecord, deviceCodeHash: string, userCodeHash: string): Promise<void>;
    byDeviceCode(hash: string): Promise<DeviceCodeRecord | null>;
    /** The newest row with this user code that has not expired at `now`. */
    byUserCode(hash: string, now: string): Promise<DeviceCodeRecord | null>;
    /** Records an accepted poll when the previous accepted one is at or before `notAfter`; false when too soon. */
    recordPoll(id: string, at: string, notAfter: string): Promise<boolean>;
    /**
     * A poll too soon: the interval grows by `seconds`; the last accepted poll stays the clock's
     * start. Returns both as they are now (null: the row is gone).
     */
    slowDown(id: string, seconds: number): Promise<{ intervalSeconds: number; lastPolledAt: string | null } | null>;
    /** pending -> approved/denied; false when the row was no longer pending. */
    decide(id: string, status: 'approved' | 'denied', userId: string, at: string): Promise<boolean>;
    /** approved -> issued; true for exactly one caller. */
    claim(id: string, tokenId: string): Promise<boolean>;
    /** Deletes rows that expired before `before`. */
    purge(before: string): Promise<void>;
  };
  clients: {
    insert(record: OAuthClientRecord): Promise<void>;
    get(clientId: string): Promise<OAuthClientRecord | null>;
    count(): Promise<number>;
    /** Records that a token was issued to the client (it is kept from then on). */
    touch(clientId: string, at: string): Promise<void>;
    /** Deletes clients registered before `before` that never got a token. */
    purgeUnused(before: string): Promise<void>;
  };
  authorizationCodes: {
    insert(record: AuthorizationCodeRecord, codeHash: string): Promise<void>;
    byCode(hash: string): Promise<AuthorizationCodeRecord | null>;
    /** Unused and not expired at `at` -> used, with the token minted for it; true for exactly one caller. */
    claim(id: string, at: string, tokenId: string): Promise<boolean>;
    /** Deletes codes that expired before `before`. */
    purge(before: string): Promise<void>;
  };
  credentials: {
    /** Whether any user has a password (none: a fresh install, the first-run link works). */
    any(): Promise<boolean>;
    byEmail(email: string): Promise<UserCredentials[]>;
    set(userId: string, passwordHash: string, at: string): Promise<void>;
  };
  sessions: {
    insert(hash: string, userId: string, createdAt: string, expiresAt: string): Promise<void>;
    /**
     * A session live at `now` (before its absolute expiry) and used after `idleSince`: its user
     * and when it was last used (its creation when never since).
     */
    live(
      hash: string,
      now: string,
      idleSince: string,
    ): Promise<{ userId: string; createdAt: string; lastSeenAt: string } | null>;
    /** Records a use of the session at `at` (the idle expiry counts from it). */
    touch(hash: string, at: string): Promise<void>;
    remove(hash: string): Promise<void>;
    /** Ends every session of the user (sign out everywhere). */
    removeUser(userId: string): Promise<void>;
  };
  throttle: {
    /** The failures of the current window of `key`, or null when none were counted. */
    get(key: string): Promise<{ failures: number; windowStartedAt: string } | null>;
    /** Counts a failure; a window that began at or before `windowStart` (it has ended) starts over at `at`. Returns the window as counted, this failure included. */
    fail(key: string, at: string, windowStart: string): Promise<{ failures: number; windowStartedAt: string }>;
    clear(key: string): Promise<void>;
    /** Forgets windows that began before `before` (every window is shorter than a day). */
    purge(before: string): Promise<void>;
  };
}
