import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Chatbots',
  lead: 'Jeder Chatbot hat sein eigenes Wissen, Aussehen und eigene Unterhaltungen. Wählen Sie einen aus, um daran zu arbeiten.',
  empty:
    'Noch keine Chatbots. Legen Sie den ersten an: Geben Sie ihm einen Namen und fügen Sie dann hinzu, was er wissen soll.',
  createHeading: 'Neuer Chatbot',
  name: 'Name',
  namePlaceholder: 'z. B. Acme-Support',
  create: 'Chatbot anlegen',
  creating: 'Wird angelegt…',
  created: '{name} wurde angelegt. Als Nächstes: unter Wissen die Seiten hinzufügen, aus denen er antworten soll.',
  open: 'Öffnen',
  selected: 'Ausgewählt',
  createdOn: 'Angelegt am {date}',
  rename: 'Umbenennen',
  renameLabel: 'Neuer Name für {name}',
  save: 'Speichern',
  cancel: 'Abbrechen',
  renamed: 'Umbenannt in {name}.',
  delete: 'Löschen',
  deleteHeading: '{name} löschen?',
  deleteText:
    'Damit werden der Chatbot und sein gesamtes Wissen, alle Unterhaltungen, Leads und Einstellungen gelöscht. Das lässt sich nicht rückgängig machen.',
  deleteConfirm: 'Geben Sie zur Bestätigung den Namen ein',
  deleteButton: 'Endgültig löschen',
  deleted: '{name} wurde gelöscht.',
  failed: 'Das hat nicht geklappt: {message}',
  limit:
    'Ihr Tarif erlaubt keine weiteren Chatbots. Löschen Sie einen oder bitten Sie einen Betreiber, das Limit zu erhöhen.',
} satisfies Partial2<Strings>;
