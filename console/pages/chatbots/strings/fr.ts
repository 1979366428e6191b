import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Chatbots',
  lead: 'Chaque chatbot a ses propres connaissances, son apparence et ses conversations. Choisissez-en un pour y travailler.',
  empty: "Aucun chatbot pour le moment. Créez le premier : donnez-lui un nom, puis ajoutez ce qu'il doit savoir.",
  createHeading: 'Nouveau chatbot',
  name: 'Nom',
  namePlaceholder: 'p. ex. Support Acme',
  create: 'Créer le chatbot',
  creating: 'Création…',
  created: '{name} a été créé. Ensuite : dans Connaissances, ajoutez les pages à partir desquelles il doit répondre.',
  open: 'Ouvrir',
  selected: 'Sélectionné',
  createdOn: 'Créé le {date}',
  rename: 'Renommer',
  renameLabel: 'Nouveau nom pour {name}',
  save: 'Enregistrer',
  cancel: 'Annuler',
  renamed: 'Renommé en {name}.',
  delete: 'Supprimer',
  deleteHeading: 'Supprimer {name} ?',
  deleteText:
    'Cela supprime le chatbot avec toutes ses connaissances, conversations, leads et réglages. Cette action est irréversible.',
  deleteConfirm: 'Saisissez le nom pour confirmer',
  deleteButton: 'Supprimer définitivement',
  deleted: '{name} a été supprimé.',
  failed: "Cela n'a pas fonctionné : {message}",
  limit:
    "Votre offre ne permet pas d'autres chatbots. Supprimez-en un ou demandez à un opérateur d'augmenter la limite.",
} satisfies Partial2<Strings>;
