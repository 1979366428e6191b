/**
 * Strings for the widget's locale: English is built in; other languages are separate chunks
 * fetched only when the locale asks for them. The owner's localization overrides win over both.
 */
import { en, type Strings } from './en.js';
import { baseLanguage } from './launcher.js';

const CHUNKS: Record<string, () => Promise<{ default: Strings }>> = {
  ar: () => import('./ar.js'),
  da: () => import('./da.js'),
  de: () => import('./de.js'),
  es: () => import('./es.js'),
  fr: () => import('./fr.js'),
  he: () => import('./he.js'),
  it: () => import('./it.js'),
  ja: () => import('./ja.js'),
  nl: () => import('./nl.js'),
  pl: () => import('./pl.js'),
  pt: () => import('./pt.js'),
  sv: () => import('./sv.js'),
};

type Overrides = Record<string, unknown> | null | undefined;

/** The locale's base language when the widget has strings for it (the languages the server takes too), else null. */
export function knownLanguage(locale: string): string | null {
  const language = baseLanguage(locale);
  return language === 'en' || Object.prototype.hasOwnProperty.call(CHUNKS, language) ? language : null;
}

export async function loadStrings(locale: string, overrides: Overrides): Promise<Strings> {
  // Own keys only: setLocale('constructor') must not call Object's.
  const language = knownLanguage(locale);
  const chunk = language && language !== 'en' ? CHUNKS[language] : null;
  const base = chunk ? (await chunk()).default : en;
  return mergeStrings(base, overrides);
}

/** Owner overrides (spec ChatbotLocalizationSettings) laid over a language, string by string. */
export function mergeStrings(base: Strings, overrides: Overrides): Strings {
  const out = structuredClone(base) as unknown as Record<string, unknown>;
  if (!overrides) return out as unknown as Strings;
  for (const [group, value] of Object.entries(overrides)) {
    if (group === 'locale' || !(group in out)) continue;
    if (typeof value === 'string' && value.trim() && typeof out[group] === 'string') out[group] = value;
    else if (value && typeof value === 'object' && typeof out[group] === 'object') {
      const target = out[group] as Record<string, string>;
      for (const [key, text] of Object.entries(value as Record<string, unknown>)) {
        if (key in target && typeof text === 'string' && text.trim()) target[key] = text;
      }
    }
  }
  return out as unknown as Strings;
}

/** `{name}` placeholders filled in. */
export const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
