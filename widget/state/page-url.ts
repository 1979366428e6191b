/**
 * The address of the page the visitor is on, sent with each message so the team sees where they
 * wrote from. Read at each send, so a single-page app's client-side navigation is followed.
 */
import { LIMITS } from '../../shared/protocol.js';

/** http(s) only, without its fragment; too long with its query, the address without it; else nothing. */
export function pageUrl(href: string | undefined = globalThis.location?.href): string | undefined {
  if (!href || !/^https?:\/\//i.test(href)) return undefined;
  const bare = href.split('#')[0]!;
  const fits = (s: string) => s.length <= LIMITS.pageUrlMax && !/\s/.test(s);
  if (fits(bare)) return bare;
  const path = bare.split('?')[0]!;
  return fits(path) ? path : undefined;
}
