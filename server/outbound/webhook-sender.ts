/**
 * Webhook HTTP: one POST per attempt through the guarded client (address checks on the socket,
 * HTTPS only, no redirects followed, a short deadline), and the save-time check of a target URL.
 */
import { isIP } from 'node:net';
import type { AttemptResult, OutgoingWebhook, WebhookSender } from '../domain/webhooks/ports.js';
import { findOutboundError } from './errors.js';
import type { GuardedHttpClient } from './guarded-client.js';
import { addressVerdict, blockedName, systemResolver, type AddressGuard, type Resolver } from './guarded-agent.js';

export interface WebhookSenderOptions {
  /** The receiver must answer within this (spec section 6: 5 s). */
  timeoutMs: number;
  /** The same address policy as the client (ALLOW_PRIVATE_FETCH), for the save-time check. */
  guard: AddressGuard;
  lookup?: Resolver;
}

/** A receiver's answer body is not used; more than this is not read. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export function webhookSender(client: GuardedHttpClient, options: WebhookSenderOptions): WebhookSender {
  const post = client.fetchWith({ timeoutMs: options.timeoutMs, maxBytes: MAX_RESPONSE_BYTES, maxRedirects: 0 });
  const resolve = options.lookup ?? systemResolver;
  return {
    async send(request: OutgoingWebhook, signal?: AbortSignal): Promise<AttemptResult> {
      if (!request.url.startsWith('https://'))
        return { status: null, error: `Refused ${request.url}: webhook targets must be HTTPS` };
      try {
        const res = await post(request.url, {
          method: 'POST',
          headers: request.headers,
          body: request.body,
          redirect: 'manual',
          signal,
        });
        // The status is the answer; the body is only drained (bounded) so the connection can be reused.
        await res.arrayBuffer().catch(() => undefined);
        return { status: res.status, error: null };
      } catch (err) {
        const outbound = findOutboundError(err);
        return {
          status: null,
          error: outbound
            ? `${outbound.code}: ${outbound.message}`
            : `Request failed: ${(err as Error)?.message ?? String(err)}`,
        };
      }
    },

    async refuse(raw: string): Promise<string | null> {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return 'is not a valid URL';
      }
      if (url.protocol !== 'https:')
        return 'must be an HTTPS URL (tokens and visitor data travel in the body and headers)';
      if (url.username || url.password) return 'must not carry a user name or password; use the token instead';
      const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      let addresses: string[];
      if (isIP(host)) addresses = [host];
      else {
        try {
          addresses = (await resolve(host)).map((a) => a.address);
        } catch {
          return null; // not resolvable yet (new DNS): checked again on every send
        }
      }
      for (const ip of addresses) {
        const verdict = addressVerdict(ip, options.guard);
        // The crawler's wording: the name the owner wrote, never what it resolves to.
        if (!verdict.allowed)
          return `${blockedName(ip, host)}; internal addresses are refused unless ALLOW_PRIVATE_FETCH opens them`;
      }
      return null;
    },
  };
}
