/**
 * Figures the search planners remember for a while (document frequencies, row counts): a minute
 * old, they plan and rank as well as fresh ones, and fetching them is what costs. Entries expire
 * after `ttlMs`; past `max` entries the cache starts over (every figure is cheap to fetch again).
 */
export function ttlCache<V>(ttlMs = 60_000, max = 5000) {
  const entries = new Map<string, { value: V; at: number }>();
  const put = (key: string, value: V, at: number) => {
    if (entries.size >= max) entries.clear();
    entries.set(key, { value, at });
  };
  return {
    /** The value of `key`, loaded when missing or expired. */
    async one(key: string, load: () => Promise<V>): Promise<V> {
      const now = Date.now();
      const hit = entries.get(key);
      if (hit && now - hit.at < ttlMs) return hit.value;
      const value = await load();
      put(key, value, now);
      return value;
    },
    /**
     * The values of `keys` (within `scope`, such as a chatbot), the missing or expired ones loaded
     * together by one call of `load`; a key it does not answer gets `absent`.
     */
    async many(
      keys: string[],
      load: (missing: string[]) => Promise<Map<string, V>>,
      absent: V,
      scope = '',
    ): Promise<Map<string, V>> {
      const now = Date.now();
      const out = new Map<string, V>();
      const missing: string[] = [];
      for (const key of new Set(keys)) {
        const hit = entries.get(`${scope}\u0000${key}`);
        if (hit && now - hit.at < ttlMs) out.set(key, hit.value);
        else missing.push(key);
      }
      if (missing.length) {
        const got = await load(missing);
        for (const key of missing) {
          const value = got.has(key) ? (got.get(key) as V) : absent;
          put(`${scope}\u0000${key}`, value, now);
          out.set(key, value);
        }
      }
      return out;
    },
  };
}
