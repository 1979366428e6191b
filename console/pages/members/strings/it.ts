import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Team',
  intro:
    'Le persone che lavorano su questo chatbot. Gli amministratori possono cambiare tutto tranne la fatturazione, su ogni chatbot; i membri gestiscono conversazioni, contatti e conoscenze dei chatbot a cui sono aggiunti.',
  loading: 'Caricamento del team…',
  empty: 'Nessuno è stato ancora aggiunto a questo chatbot.',
  inviteHeading: 'Aggiungi qualcuno',
  email: 'E-mail',
  name: 'Nome visualizzato (facoltativo)',
  role: 'Ruolo',
  roleHelp: 'Il ruolo vale per tutto l’account. Chi è già nell’account mantiene il suo ruolo.',
  alsoOn: 'Aggiungi anche a',
  invite: 'Aggiungi al team',
  invited: '{email} è stato aggiunto.',
  owner: 'Proprietario',
  admin: 'Amministratore',
  member: 'Membro',
  you: 'tu',
  roleOf: 'Ruolo di {name}',
  roleChanged: '{name} ora è {role}.',
  alsoOnList: 'Anche su: {names}',
  onlyHere: 'Solo su questo chatbot',
  since: 'Aggiunto il {date}',
  remove: 'Rimuovi',
  removeText: 'Rimuovere {name} da questo chatbot? Resta nell’account.',
  removeButton: 'Rimuovi dal chatbot',
  cancel: 'Annulla',
  removed: '{name} è stato rimosso da questo chatbot.',
  failed: 'Non ha funzionato: {message}',
} satisfies Partial2<Strings>;
