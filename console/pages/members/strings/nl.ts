import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Team',
  intro:
    'De mensen die aan deze chatbot werken. Beheerders mogen alles behalve facturering, bij elke chatbot; leden behandelen gesprekken, leads en kennis van de chatbots waaraan ze zijn toegevoegd.',
  loading: 'Team laden…',
  empty: 'Er is nog niemand aan deze chatbot toegevoegd.',
  inviteHeading: 'Iemand toevoegen',
  email: 'E-mail',
  name: 'Weergavenaam (optioneel)',
  role: 'Rol',
  roleHelp: 'De rol geldt voor het hele account. Wie al in het account zit, houdt zijn rol.',
  alsoOn: 'Ook toevoegen aan',
  invite: 'Aan het team toevoegen',
  invited: '{email} is toegevoegd.',
  owner: 'Eigenaar',
  admin: 'Beheerder',
  member: 'Lid',
  you: 'u',
  roleOf: 'Rol van {name}',
  roleChanged: '{name} is nu {role}.',
  alsoOnList: 'Ook bij: {names}',
  onlyHere: 'Alleen bij deze chatbot',
  since: 'Toegevoegd op {date}',
  remove: 'Verwijderen',
  removeText: '{name} van deze chatbot verwijderen? Diegene blijft in het account.',
  removeButton: 'Van chatbot verwijderen',
  cancel: 'Annuleren',
  removed: '{name} is van deze chatbot verwijderd.',
  failed: 'Dat lukte niet: {message}',
} satisfies Partial2<Strings>;
