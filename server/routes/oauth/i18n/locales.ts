/** The verification page's text per locale: the widget's languages (widget/i18n), English as the fallback. */
import { pickLanguage } from '../../../http/languages.js';
import ar from './ar.js';
import da from './da.js';
import de from './de.js';
import { en, type Strings } from './en.js';
import es from './es.js';
import fr from './fr.js';
import he from './he.js';
import it from './it.js';
import ja from './ja.js';
import nl from './nl.js';
import pl from './pl.js';
import pt from './pt.js';
import sv from './sv.js';

export type { Strings };

const STRINGS = { en, ar, da, de, es, fr, he, it, ja, nl, pl, pt, sv } satisfies Record<string, Strings>;
export type Locale = keyof typeof STRINGS;
export const LOCALES = Object.keys(STRINGS) as Locale[];

/** The first supported language of an Accept-Language header (quality order), else English. */
export const pickLocale = (header: string | undefined): Locale => pickLanguage(header, LOCALES);

export const stringsFor = (locale: Locale): Strings => STRINGS[locale];

/** `{name}` placeholders filled in (values are escaped by the page, not here). */
export const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
