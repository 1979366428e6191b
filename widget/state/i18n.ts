/** The widget's own text: the locale and its strings (English until the language's chunk has loaded). */
import { signal } from '@preact/signals';
import { en, type Strings } from '../i18n/en.js';
import { loadStrings } from '../i18n/locales.js';

export class I18nModel {
  readonly locale = signal('en');
  readonly strings = signal<Strings>(en);

  constructor(private readonly localization: Record<string, unknown> | null) {}

  /** Settles once the language's strings are in use. */
  setLocale(locale: string): Promise<void> {
    this.locale.value = locale;
    return loadStrings(locale, this.localization).then((strings) => this.setStrings(strings));
  }

  setStrings(strings: Strings) {
    this.strings.value = strings;
  }
}
