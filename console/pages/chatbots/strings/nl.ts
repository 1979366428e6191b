import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Chatbots',
  lead: 'Elke chatbot heeft eigen kennis, een eigen uiterlijk en eigen gesprekken. Kies er een om eraan te werken.',
  empty: 'Nog geen chatbots. Maak de eerste: geef hem een naam en voeg daarna toe wat hij moet weten.',
  createHeading: 'Nieuwe chatbot',
  name: 'Naam',
  namePlaceholder: 'bijv. Acme-support',
  create: 'Chatbot maken',
  creating: 'Bezig met maken…',
  created: "{name} is gemaakt. Volgende stap: voeg bij Kennis de pagina's toe waaruit hij moet antwoorden.",
  open: 'Openen',
  selected: 'Geselecteerd',
  createdOn: 'Gemaakt op {date}',
  rename: 'Naam wijzigen',
  renameLabel: 'Nieuwe naam voor {name}',
  save: 'Opslaan',
  cancel: 'Annuleren',
  renamed: 'Hernoemd naar {name}.',
  delete: 'Verwijderen',
  deleteHeading: '{name} verwijderen?',
  deleteText:
    'Hiermee verwijder je de chatbot met alle kennis, gesprekken, leads en instellingen. Dit kan niet ongedaan worden gemaakt.',
  deleteConfirm: 'Typ de naam om te bevestigen',
  deleteButton: 'Definitief verwijderen',
  deleted: '{name} is verwijderd.',
  failed: 'Dat lukte niet: {message}',
  limit: 'Je abonnement staat geen extra chatbots toe. Verwijder er een of vraag een beheerder de limiet te verhogen.',
} satisfies Partial2<Strings>;
