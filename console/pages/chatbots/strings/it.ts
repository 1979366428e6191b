import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Chatbot',
  lead: 'Ogni chatbot ha le sue conoscenze, il suo aspetto e le sue conversazioni. Scegline uno per lavorarci.',
  empty: 'Ancora nessun chatbot. Crea il primo: dagli un nome, poi aggiungi ciò che deve sapere.',
  createHeading: 'Nuovo chatbot',
  name: 'Nome',
  namePlaceholder: 'ad es. Assistenza Acme',
  create: 'Crea chatbot',
  creating: 'Creazione…',
  created: '{name} è stato creato. Passo successivo: in Conoscenza, aggiungi le pagine da cui deve rispondere.',
  open: 'Apri',
  selected: 'Selezionato',
  createdOn: 'Creato il {date}',
  rename: 'Rinomina',
  renameLabel: 'Nuovo nome per {name}',
  save: 'Salva',
  cancel: 'Annulla',
  renamed: 'Rinominato in {name}.',
  delete: 'Elimina',
  deleteHeading: 'Eliminare {name}?',
  deleteText:
    'Verranno eliminati il chatbot e tutte le sue conoscenze, conversazioni, lead e impostazioni. Non si può annullare.',
  deleteConfirm: 'Digita il nome per confermare',
  deleteButton: 'Elimina definitivamente',
  deleted: '{name} è stato eliminato.',
  failed: 'Non ha funzionato: {message}',
  limit: 'Il tuo piano non consente altri chatbot. Eliminane uno o chiedi a un operatore di aumentare il limite.',
} satisfies Partial2<Strings>;
