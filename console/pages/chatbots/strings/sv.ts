import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Chattbotar',
  lead: 'Varje chattbot har egen kunskap, eget utseende och egna konversationer. Välj en för att arbeta med den.',
  empty: 'Inga chattbotar än. Skapa den första: ge den ett namn och lägg sedan till vad den ska kunna.',
  createHeading: 'Ny chattbot',
  name: 'Namn',
  namePlaceholder: 't.ex. Acme-support',
  create: 'Skapa chattbot',
  creating: 'Skapar…',
  created: '{name} har skapats. Nästa steg: lägg under Kunskap till de sidor den ska svara utifrån.',
  open: 'Öppna',
  selected: 'Vald',
  createdOn: 'Skapad {date}',
  rename: 'Byt namn',
  renameLabel: 'Nytt namn för {name}',
  save: 'Spara',
  cancel: 'Avbryt',
  renamed: 'Bytte namn till {name}.',
  delete: 'Ta bort',
  deleteHeading: 'Ta bort {name}?',
  deleteText:
    'Det tar bort chattboten med all kunskap, alla konversationer, leads och inställningar. Det går inte att ångra.',
  deleteConfirm: 'Skriv namnet för att bekräfta',
  deleteButton: 'Ta bort för gott',
  deleted: '{name} har tagits bort.',
  failed: 'Det gick inte: {message}',
  limit: 'Din plan tillåter inga fler chattbotar. Ta bort en eller be en operatör höja gränsen.',
} satisfies Partial2<Strings>;
