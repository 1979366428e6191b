/** The v2 API with the operator's pasted token (kept in memory only). */
export interface Api {
  token: string;
  call<T = any>(method: string, path: string, body?: unknown): Promise<T>;
}

export function api(token: string): Api {
  return {
    token,
    async call(method, path, body) {
      const res = await fetch(`/api/v2${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const envelope = await res.json().catch(() => null);
      if (!res.ok || !envelope?.ok) throw new Error(envelope?.error?.message ?? `HTTP ${res.status}`);
      return envelope.data;
    },
  };
}

/** WCAG contrast ratio of two #rrggbb colours. */
export function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
    if (!m) return 0;
    const [r, g, bl] = [0, 2, 4]
      .map((i) => parseInt(m[1].slice(i, i + 2), 16) / 255)
      .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
