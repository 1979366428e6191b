import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Czatboty',
  lead: 'Każdy czatbot ma własną wiedzę, wygląd i rozmowy. Wybierz jeden, aby nad nim pracować.',
  empty: 'Brak czatbotów. Utwórz pierwszy: nadaj mu nazwę, a potem dodaj to, co ma wiedzieć.',
  createHeading: 'Nowy czatbot',
  name: 'Nazwa',
  namePlaceholder: 'np. Wsparcie Acme',
  create: 'Utwórz czatbota',
  creating: 'Tworzenie…',
  created: 'Utworzono {name}. Dalej: w sekcji Wiedza dodaj strony, na podstawie których ma odpowiadać.',
  open: 'Otwórz',
  selected: 'Wybrany',
  createdOn: 'Utworzono {date}',
  rename: 'Zmień nazwę',
  renameLabel: 'Nowa nazwa dla {name}',
  save: 'Zapisz',
  cancel: 'Anuluj',
  renamed: 'Zmieniono nazwę na {name}.',
  delete: 'Usuń',
  deleteHeading: 'Usunąć {name}?',
  deleteText:
    'Spowoduje to usunięcie czatbota wraz z całą wiedzą, rozmowami, leadami i ustawieniami. Tej operacji nie można cofnąć.',
  deleteConfirm: 'Wpisz nazwę, aby potwierdzić',
  deleteButton: 'Usuń na zawsze',
  deleted: 'Usunięto {name}.',
  failed: 'Nie udało się: {message}',
  limit: 'Twój plan nie pozwala na więcej czatbotów. Usuń jeden lub poproś operatora o zwiększenie limitu.',
} satisfies Partial2<Strings>;
