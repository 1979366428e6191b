import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

const it: Partial2<Strings> = {
  title: 'Lacune di conoscenza',
  lead: 'Domande dei visitatori a cui il chatbot non ha saputo rispondere. Rispondi qui: la risposta viene inviata al visitatore che ha chiesto e data a chiunque faccia la stessa domanda in seguito.',
  show: 'Mostra',
  open: 'Senza risposta',
  answered: 'Con risposta',
  none: 'Nessuna domanda senza risposta. Ottimo lavoro.',
  noneAnswered: 'Qui non è stata ancora data alcuna risposta.',
  asked: 'Chiesta {date}',
  answeredOn: 'Risposta {date}',
  answer: 'La tua risposta',
  save: 'Invia risposta',
  saving: 'Invio…',
  update: 'Modifica risposta',
  saved: 'Salvata come risposta personalizzata. Il visitatore che ha chiesto ha ricevuto la tua risposta.',
  current: 'Risposta attuale',
  delete: 'Ignora',
  confirmDelete: 'Ignorare questa domanda senza rispondere?',
  keep: 'Mantieni',
  noWrite: 'Il tuo ruolo può vedere queste domande ma non rispondere.',
  more: 'Mostra altre',
};

export default it;
