import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Team',
  intro:
    'Personerna som arbetar med den här chattboten. Administratörer får ändra allt utom fakturering, på alla chattbotar; medlemmar hanterar konversationer, leads och kunskap på de chattbotar de lagts till i.',
  loading: 'Hämtar teamet…',
  empty: 'Ingen har lagts till i den här chattboten ännu.',
  inviteHeading: 'Lägg till någon',
  email: 'E-post',
  name: 'Visningsnamn (valfritt)',
  role: 'Roll',
  roleHelp: 'Rollen gäller hela kontot. Den som redan finns i kontot behåller sin roll.',
  alsoOn: 'Lägg också till i',
  invite: 'Lägg till i teamet',
  invited: '{email} lades till.',
  owner: 'Ägare',
  admin: 'Administratör',
  member: 'Medlem',
  you: 'du',
  roleOf: 'Roll för {name}',
  roleChanged: '{name} är nu {role}.',
  alsoOnList: 'Även i: {names}',
  onlyHere: 'Bara i den här chattboten',
  since: 'Tillagd {date}',
  remove: 'Ta bort',
  removeText: 'Ta bort {name} från den här chattboten? Personen finns kvar i kontot.',
  removeButton: 'Ta bort från chattboten',
  cancel: 'Avbryt',
  removed: '{name} togs bort från den här chattboten.',
  failed: 'Det gick inte: {message}',
} satisfies Partial2<Strings>;
