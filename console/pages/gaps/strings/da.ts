import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

const da: Partial2<Strings> = {
  title: 'Videnshuller',
  lead: 'Spørgsmål fra besøgende, som din chatbot ikke kunne besvare. Besvar dem her: dit svar sendes til den besøgende, der spurgte, og gives til alle, der spørger om det samme senere.',
  show: 'Vis',
  open: 'Ubesvarede',
  answered: 'Besvarede',
  none: 'Ingen ubesvarede spørgsmål. Godt gået.',
  noneAnswered: 'Der er endnu ikke besvaret spørgsmål her.',
  asked: 'Spurgt {date}',
  answeredOn: 'Besvaret {date}',
  answer: 'Dit svar',
  save: 'Send svar',
  saving: 'Sender…',
  update: 'Ret svar',
  saved: 'Gemt som fast svar. Den besøgende, der spurgte, har fået dit svar.',
  current: 'Nuværende svar',
  delete: 'Afvis',
  confirmDelete: 'Afvis spørgsmålet uden at svare?',
  keep: 'Behold',
  noWrite: 'Din rolle kan se disse spørgsmål, men ikke besvare dem.',
  more: 'Vis flere',
};

export default da;
