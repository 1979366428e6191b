/**
 * The chatbot's allowed domains (setting `allowedDomains`): which web pages may embed the widget.
 * An entry is a host name (`example.com`), a host and port (`localhost:5173`), or a wildcard for
 * subdomains (`*.example.com`, not the bare domain). An empty list allows every page.
 */

const ENTRY = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$/;

export const isDomainEntry = (entry: string) => ENTRY.test(entry);

export function allowedDomainsOf(settings: Record<string, unknown>): string[] {
  const v = settings.allowedDomains;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * Whether a page with this `Origin` may use the chatbot. No Origin header means a client that is
 * not a browser page (an app, a server), which could send any Origin anyway: allowed.
 */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (!allowed.length || origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowed.some((raw) => {
    const entry = raw.toLowerCase();
    const [name, entryPort] = entry.split(':');
    if (entryPort && entryPort !== port) return false;
    if (name.startsWith('*.')) return host.endsWith(name.slice(1));
    return host === name;
  });
}
