/**
 * undici, loaded with the first outbound request rather than at start (bench/README.md, startup).
 * Bundled, a CommonJS package imported with import() has only a default export; unbundled it
 * has its named exports too.
 */
type Undici = typeof import('undici');

let loaded: Promise<Undici> | undefined;

export function loadUndici(): Promise<Undici> {
  return (loaded ??= import('undici').then((m) => ((m as { default?: Undici }).default ?? m) as Undici));
}
