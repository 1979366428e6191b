import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Zespół',
  intro:
    'Osoby pracujące przy tym czatbocie. Administratorzy mogą zmieniać wszystko poza płatnościami, we wszystkich czatbotach; członkowie obsługują rozmowy, kontakty i wiedzę czatbotów, do których ich dodano.',
  loading: 'Wczytywanie zespołu…',
  empty: 'Do tego czatbota nikogo jeszcze nie dodano.',
  inviteHeading: 'Dodaj osobę',
  email: 'E-mail',
  name: 'Wyświetlana nazwa (opcjonalnie)',
  role: 'Rola',
  roleHelp: 'Rola obowiązuje w całym koncie. Osoba, która już jest w koncie, zachowuje swoją rolę.',
  alsoOn: 'Dodaj także do',
  invite: 'Dodaj do zespołu',
  invited: 'Dodano {email}.',
  owner: 'Właściciel',
  admin: 'Administrator',
  member: 'Członek',
  you: 'Ty',
  roleOf: 'Rola: {name}',
  roleChanged: '{name} ma teraz rolę: {role}.',
  alsoOnList: 'Także w: {names}',
  onlyHere: 'Tylko w tym czatbocie',
  since: 'Dodano {date}',
  remove: 'Usuń',
  removeText: 'Usunąć {name} z tego czatbota? Osoba pozostanie w koncie.',
  removeButton: 'Usuń z czatbota',
  cancel: 'Anuluj',
  removed: 'Usunięto {name} z tego czatbota.',
  failed: 'Nie udało się: {message}',
} satisfies Partial2<Strings>;
