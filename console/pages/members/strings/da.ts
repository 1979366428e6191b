import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Team',
  intro:
    'De personer, der arbejder på denne chatbot. Administratorer må ændre alt undtagen betaling, på alle chatbots; medlemmer håndterer samtaler, leads og viden på de chatbots, de er tilføjet.',
  loading: 'Henter teamet…',
  empty: 'Ingen er tilføjet til denne chatbot endnu.',
  inviteHeading: 'Tilføj en person',
  email: 'E-mail',
  name: 'Visningsnavn (valgfrit)',
  role: 'Rolle',
  roleHelp: 'Rollen gælder hele kontoen. En person, der allerede er i kontoen, beholder sin rolle.',
  alsoOn: 'Tilføj også til',
  invite: 'Tilføj til teamet',
  invited: '{email} blev tilføjet.',
  owner: 'Ejer',
  admin: 'Administrator',
  member: 'Medlem',
  you: 'dig',
  roleOf: 'Rolle for {name}',
  roleChanged: '{name} er nu {role}.',
  alsoOnList: 'Også på: {names}',
  onlyHere: 'Kun på denne chatbot',
  since: 'Tilføjet {date}',
  remove: 'Fjern',
  removeText: 'Fjern {name} fra denne chatbot? Personen forbliver i kontoen.',
  removeButton: 'Fjern fra chatbot',
  cancel: 'Annuller',
  removed: '{name} blev fjernet fra denne chatbot.',
  failed: 'Det lykkedes ikke: {message}',
} satisfies Partial2<Strings>;
