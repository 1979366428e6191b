import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Kontakty',
  lead: 'Dane kontaktowe zostawione przez odwiedzających w rozmowach, od najnowszych.',
  export: 'Eksportuj CSV',
  loading: 'Wczytywanie kontaktów…',
  empty:
    'Nie ma jeszcze kontaktów. Włącz zbieranie kontaktów w Wygląd → Zbieranie kontaktów, a odwiedzający będą mogli zostawić swoje dane.',
  count: 'Kontakty: {count}',
  captured: 'Otrzymano',
  name: 'Imię i nazwisko',
  email: 'E-mail',
  phone: 'Telefon',
  failed: 'Nie udało się wczytać kontaktów: {message}',
} satisfies Partial2<Strings>;
