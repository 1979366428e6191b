/**
 * The OAuth 2.0 device authorization grant (RFC 8628): a command-line client asks for a device
 * code, a signed-in user approves its user code on the verification page, the client polls the
 * token endpoint and receives one ordinary scoped API token. See README.md for the rules.
 */
import { isScope, type Scope } from '../../../shared/scopes.js';
import { generateSecret, hashSecret } from '../auth.js';
import { newId } from '../ids.js';
import type { ChatbotRecord, Store, UserRecord } from '../ports.js';
import type { TokensService } from '../tokens.service.js';
import { type IssuedToken, issueGrantToken, OAuthError } from './grants.js';
import type { DeviceCodeRecord } from './ports.js';
import { Throttle } from './throttle.js';
import { formatUserCode, generateUserCode, normaliseUserCode } from './user-codes.js';

/** The first-party command-line client: public, no secret. */
export const CLI_CLIENT_ID = 'parley-cli';
export const CLIENTS: Record<string, { name: string }> = { [CLI_CLIENT_ID]: { name: 'Parley CLI' } };
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const DEVICE_TOKEN_NAME = 'Parley CLI (device sign-in)';

/**
 * RFC 8628 3.5: each slow_down adds 5 seconds to the code's polling interval, counted from the
 * last accepted poll: a client that waits the raised interval after a slow_down is accepted.
 */
export const SLOW_DOWN_SECONDS = 5;
const MAX_CHATBOTS = 100;
const CODE_ATTEMPTS = 10;
const CODE_WINDOW_MS = 15 * 60_000;

export interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  expiresIn: number;
  interval: number;
}

/** What the verification page shows before the user approves. */
export interface DeviceRequestView {
  userCode: string;
  clientName: string;
  /** Null: the client asked for no scope, the token gets Standard access. */
  scopes: Scope[] | null;
  /** Null: every chatbot. `title` is null for an id that is not a chatbot of the user's account. */
  chatbots: { id: string; title: string | null }[] | null;
  expiresAt: string;
}

export type CodeLookup =
  | { ok: true; request: DeviceRequestView; record: DeviceCodeRecord }
  | { ok: false; problem: 'unknown' | 'throttled'; retryAfterSeconds?: number };

export interface DeviceFlowOptions {
  intervalSeconds: number;
  ttlSeconds: number;
  now?: () => number;
}

const words = (v: string | undefined) => (v ?? '').split(/[\s,]+/).filter(Boolean);

export class DeviceFlowService {
  private readonly now: () => number;
  private readonly codeThrottle: Throttle;

  constructor(
    private readonly store: Store,
    private readonly tokens: TokensService,
    private readonly options: DeviceFlowOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.codeThrottle = new Throttle(store.oauth.throttle, CODE_ATTEMPTS, CODE_WINDOW_MS, this.now);
  }

  private iso(offsetMs = 0) {
    return new Date(this.now() + offsetMs).toISOString();
  }

  client(clientId: string | undefined) {
    const client = clientId ? CLIENTS[clientId] : undefined;
    if (!client)
      throw new OAuthError(
        'invalid_client',
        `Unknown client_id${clientId ? ` "${clientId.slice(0, 64)}"` : ''}: the first-party command line is "${CLI_CLIENT_ID}"`,
      );
    return client;
  }

  /** RFC 8628 3.1-3.2: a device code and a user code for `clientId`. */
  async authorize(input: { clientId?: string; scope?: string; chatbots?: string }): Promise<DeviceAuthorization> {
    this.client(input.clientId);
    const asked = words(input.scope);
    const unknown = asked.filter((s) => !isScope(s));
    if (unknown.length)
      throw new OAuthError('invalid_scope', `Unknown scope ${unknown.map((s) => `"${s.slice(0, 64)}"`).join(', ')}`);
    const scopes = asked.length ? ([...new Set(asked)] as Scope[]) : null;
    const ids = [...new Set(words(input.chatbots))];
    if (ids.length > MAX_CHATBOTS) throw new OAuthError('invalid_request', `At most ${MAX_CHATBOTS} chatbots`);
    if (ids.some((id) => !/^[A-Za-z0-9_-]{1,64}$/.test(id)))
      throw new OAuthError('invalid_request', 'chatbots lists chatbot ids separated by spaces or commas');

    const now = this.iso();
    await this.store.oauth.deviceCodes.purge(this.iso(-24 * 3600_000));
    let userCode = generateUserCode();
    // 2.6e10 codes: a clash with a live one is rare, but two live requests must never share one.
    for (let i = 0; i < 5 && (await this.store.oauth.deviceCodes.byUserCode(hashSecret(userCode), now)); i++)
      userCode = generateUserCode();
    const device = generateSecret();
    await this.store.oauth.deviceCodes.insert(
      {
        id: newId(),
        clientId: input.clientId!,
        scopes,
        chatbotIds: ids.length ? ids : null,
        status: 'pending',
        userId: null,
        intervalSeconds: this.options.intervalSeconds,
        lastPolledAt: null,
        expiresAt: this.iso(this.options.ttlSeconds * 1000),
        createdAt: now,
        tokenId: null,
      },
      device.hash,
      hashSecret(userCode),
    );
    return {
      deviceCode: device.plaintext,
      userCode: formatUserCode(userCode),
      expiresIn: this.options.ttlSeconds,
      interval: this.options.intervalSeconds,
    };
  }

  /** RFC 8628 3.4-3.5: one poll of the token endpoint. */
  async poll(input: { clientId?: string; deviceCode?: string }): Promise<IssuedToken> {
    this.client(input.clientId);
    if (!input.deviceCode) throw new OAuthError('invalid_request', 'device_code is required');
    const row = await this.store.oauth.deviceCodes.byDeviceCode(hashSecret(input.deviceCode));
    if (!row || row.clientId !== input.clientId) throw new OAuthError('invalid_grant', 'Unknown device_code');
    if (row.status === 'issued')
      throw new OAuthError('invalid_grant', 'This device_code was already exchanged for a token');
    const at = this.now();
    if (at >= Date.parse(row.expiresAt))
      throw new OAuthError('expired_token', 'The device_code expired: start the sign-in again');
    const atIso = new Date(at).toISOString();
    const notAfter = new Date(at - row.intervalSeconds * 1000).toISOString();
    if (!(await this.store.oauth.deviceCodes.recordPoll(row.id, atIso, notAfter))) {
      const slowed = await this.store.oauth.deviceCodes.slowDown(row.id, SLOW_DOWN_SECONDS);
      const interval = slowed?.intervalSeconds ?? row.intervalSeconds + SLOW_DOWN_SECONDS;
      const since = slowed?.lastPolledAt ?? row.lastPolledAt;
      const wait = since ? Math.max(1, Math.ceil((Date.parse(since) + interval * 1000 - at) / 1000)) : interval;
      throw new OAuthError(
        'slow_down',
        `Polling too fast: the interval is now ${interval} seconds from the last accepted poll; poll again in ${wait} seconds`,
        400,
        wait,
      );
    }
    if (row.status === 'pending')
      throw new OAuthError('authorization_pending', 'The user has not approved this request yet');
    if (row.status === 'denied') throw new OAuthError('access_denied', 'The user denied this request');
    return this.issue(row);
  }

  /** approved -> issued and the token, in one transaction: exactly one poll gets a token. */
  async issue(row: DeviceCodeRecord): Promise<IssuedToken> {
    // A chatbot deleted between approval and this poll: the grant cannot be honoured as approved.
    return issueGrantToken(
      this.store,
      this.tokens,
      'The approved request can no longer be granted',
      async (s, tokenId) => {
        if (!(await s.oauth.deviceCodes.claim(row.id, tokenId)))
          throw new OAuthError('invalid_grant', 'This device_code was already exchanged for a token');
        const user = row.userId ? await s.users.get(row.userId) : null;
        if (!user) throw new OAuthError('invalid_grant', 'The approving user no longer exists');
        return {
          user,
          token: {
            name: DEVICE_TOKEN_NAME,
            access: row.scopes ? 'custom' : 'standard',
            scopes: row.scopes ?? undefined,
            chatbotIds: row.chatbotIds,
          },
        };
      },
    );
  }

  /**
   * The request behind a user code typed on the verification page by `user`. Wrong codes count
   * against the user; past the limit every code is refused until the window ends.
   */
  async lookup(user: UserRecord, input: string): Promise<CodeLookup> {
    const key = `user-code:${user.id}`;
    const wait = await this.codeThrottle.wait(key);
    if (wait > 0) return { ok: false, problem: 'throttled', retryAfterSeconds: wait };
    const code = normaliseUserCode(input);
    const row = code ? await this.store.oauth.deviceCodes.byUserCode(hashSecret(code), this.iso()) : null;
    if (!code || !row || row.status !== 'pending') {
      await this.codeThrottle.fail(key);
      return { ok: false, problem: 'unknown' };
    }
    let chatbots: DeviceRequestView['chatbots'] = null;
    if (row.chatbotIds) {
      const found = await Promise.all(row.chatbotIds.map((id) => this.reachable(user, id)));
      chatbots = row.chatbotIds.map((id, i) => ({ id, title: found[i]?.title ?? null }));
    }
    return {
      ok: true,
      record: row,
      request: {
        userCode: formatUserCode(code),
        clientName: CLIENTS[row.clientId]?.name ?? row.clientId,
        scopes: row.scopes,
        chatbots,
        expiresAt: row.expiresAt,
      },
    };
  }

  /** The chatbot as `user` reaches it on the API: of their account and, for a member, one they were added to. */
  private async reachable(user: UserRecord, id: string): Promise<ChatbotRecord | null> {
    const chatbot = await this.store.chatbots.get(id);
    if (!chatbot || chatbot.accountId !== user.accountId) return null;
    if (user.role === 'member' && !(await this.store.resources.members.byUser(chatbot.id, user.id))) return null;
    return chatbot;
  }

  /**
   * The user's answer. Approving needs every chatbot asked for to be one the user reaches.
   * Returns false when the code is no longer pending (answered in another tab, expired).
   */
  async decide(user: UserRecord, input: string, approve: boolean): Promise<CodeLookup & { decided?: boolean }> {
    const found = await this.lookup(user, input);
    if (!found.ok) return found;
    if (approve && found.request.chatbots?.some((c) => c.title === null)) {
      return { ...found, decided: false };
    }
    const decided = await this.store.oauth.deviceCodes.decide(
      found.record.id,
      approve ? 'approved' : 'denied',
      user.id,
      this.iso(),
    );
    if (decided) await this.codeThrottle.clear(`user-code:${user.id}`);
    return { ...found, decided };
  }

  /** RFC 7009: revokes the API token presented (holding it is enough); unknown tokens are ignored. */
  async revoke(input: { clientId?: string; token?: string }, registeredClient = false): Promise<void> {
    if (!registeredClient) this.client(input.clientId);
    if (!input.token) throw new OAuthError('invalid_request', 'token is required');
    const token = await this.store.tokens.byHash(hashSecret(input.token));
    if (token && token.kind === 'api') await this.tokens.revokeAsOperator(token.accountId, token.id);
  }
}
