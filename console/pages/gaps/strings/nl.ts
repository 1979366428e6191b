import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

const nl: Partial2<Strings> = {
  title: 'Kennishiaten',
  lead: 'Vragen van bezoekers die uw chatbot niet kon beantwoorden. Beantwoord ze hier: uw antwoord gaat naar de bezoeker die het vroeg, en naar iedereen die het daarna vraagt.',
  show: 'Tonen',
  open: 'Onbeantwoord',
  answered: 'Beantwoord',
  none: 'Geen onbeantwoorde vragen. Goed bezig.',
  noneAnswered: 'Hier is nog geen vraag beantwoord.',
  asked: 'Gevraagd {date}',
  answeredOn: 'Beantwoord {date}',
  answer: 'Uw antwoord',
  save: 'Antwoord versturen',
  saving: 'Versturen…',
  update: 'Antwoord wijzigen',
  saved: 'Opgeslagen als vast antwoord. De bezoeker die het vroeg, heeft uw antwoord ontvangen.',
  current: 'Huidig antwoord',
  delete: 'Negeren',
  confirmDelete: 'Deze vraag negeren zonder te antwoorden?',
  keep: 'Behouden',
  noWrite: 'Uw rol mag deze vragen zien, maar niet beantwoorden.',
  more: 'Meer tonen',
};

export default nl;
