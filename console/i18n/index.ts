/**
 * The console's languages: English built in, every other language a chunk loaded when chosen
 * (the widget's locales). Strings live beside what shows them: the shell's in strings/, each
 * page's in pages/<name>/strings/. A language file may leave keys out: English shows instead.
 */
import { signal } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';

/** English first; the rest are the widget's locales (widget/i18n). */
export const LANGUAGES = ['en', 'ar', 'da', 'de', 'es', 'fr', 'he', 'it', 'ja', 'nl', 'pl', 'pt', 'sv'] as const;
export type Language = (typeof LANGUAGES)[number];
/** Each language's own name, for the language menu. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  ar: 'العربية',
  da: 'Dansk',
  de: 'Deutsch',
  es: 'Español',
  fr: 'Français',
  he: 'עברית',
  it: 'Italiano',
  ja: '日本語',
  nl: 'Nederlands',
  pl: 'Polski',
  pt: 'Português',
  sv: 'Svenska',
};
const RTL: readonly Language[] = ['ar', 'he'];
const STORED = 'parley.console.language';

const isLanguage = (v: string | null | undefined): v is Language => LANGUAGES.includes(v as Language);

/** The saved choice, else the browser's first language the console has, else English. */
function initialLanguage(): Language {
  const saved = globalThis.localStorage?.getItem(STORED);
  if (isLanguage(saved)) return saved;
  for (const l of globalThis.navigator?.languages ?? []) {
    const base = l.toLowerCase().split('-')[0];
    if (isLanguage(base)) return base;
  }
  return 'en';
}

export const language = signal<Language>(initialLanguage());

/** Sets the language (remembered in this browser) and the page's lang and dir. */
export function setLanguage(next: Language) {
  language.value = next;
  globalThis.localStorage?.setItem(STORED, next);
  applyDocumentLanguage();
}

export function applyDocumentLanguage() {
  document.documentElement.lang = language.value;
  document.documentElement.dir = RTL.includes(language.value) ? 'rtl' : 'ltr';
}

/** Nested string tables: a language file may leave any key out. */
export type Partial2<T> = { [K in keyof T]?: T[K] extends string ? string : Partial2<T[K]> };
type Loaders<T> = Record<string, () => Promise<{ default: Partial2<T> }>>;

function merge<T>(base: T, over: Partial2<T> | undefined): T {
  if (!over) return base;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    if (typeof v === 'string' && typeof b === 'string' && v) out[k] = v;
    else if (v && typeof v === 'object' && b && typeof b === 'object') out[k] = merge(b, v as Partial2<typeof b>);
  }
  return out as T;
}

const loaded = new WeakMap<object, Map<Language, unknown>>();

/**
 * The strings of the current language: `en` (imported statically) laid under the language's
 * file from `loaders` (`import.meta.glob('./strings/*.ts')`, keyed `./strings/<language>.ts`).
 * Re-renders when the language changes or its file arrives.
 */
export function useStrings<T extends object>(en: T, loaders: Loaders<T>): T {
  const lang = language.value;
  const cache = loaded.get(en) ?? new Map<Language, unknown>();
  loaded.set(en, cache);
  const [, setTick] = useState(0);
  const load = lang === 'en' ? null : Object.entries(loaders).find(([path]) => path.endsWith(`/${lang}.ts`))?.[1];
  useEffect(() => {
    if (!load || cache.has(lang)) return;
    let live = true;
    load().then(
      (m) => {
        cache.set(lang, merge(en, m.default));
        if (live) setTick((n) => n + 1);
      },
      () => cache.set(lang, en),
    );
    return () => {
      live = false;
    };
  }, [lang, load]);
  return (cache.get(lang) as T | undefined) ?? en;
}

/** `{name}` placeholders filled in. */
export const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));

/** Dates and numbers in the console's language. */
export const formatDate = (iso: string, options: Intl.DateTimeFormatOptions = { dateStyle: 'medium' }) =>
  new Intl.DateTimeFormat(language.value, options).format(new Date(iso));
export const formatNumber = (n: number) => new Intl.NumberFormat(language.value).format(n);
