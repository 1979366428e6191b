/** The first of `supported` an Accept-Language header asks for (quality order, base language), else English. */
export function pickLanguage<T extends string>(header: string | undefined, supported: readonly T[]): T | 'en' {
  const wanted = (header ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { lang: tag.toLowerCase().split('-')[0], q: q === undefined ? 1 : Number(q) };
    })
    .filter((w) => w.q > 0)
    .sort((a, b) => b.q - a.q);
  return (wanted.find((w) => (supported as readonly string[]).includes(w.lang))?.lang as T | undefined) ?? 'en';
}

/** Languages written right to left, of those Parley ships text for. */
export const RTL_LANGUAGES: readonly string[] = ['ar', 'he'];
