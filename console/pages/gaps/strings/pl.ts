import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

const pl: Partial2<Strings> = {
  title: 'Luki w wiedzy',
  lead: 'Pytania odwiedzających, na które chatbot nie umiał odpowiedzieć. Odpowiedz tutaj: odpowiedź trafi do osoby, która pytała, i do każdego, kto zada to pytanie później.',
  show: 'Pokaż',
  open: 'Bez odpowiedzi',
  answered: 'Z odpowiedzią',
  none: 'Brak pytań bez odpowiedzi. Dobra robota.',
  noneAnswered: 'Nie udzielono tu jeszcze żadnej odpowiedzi.',
  asked: 'Zadane {date}',
  answeredOn: 'Odpowiedziano {date}',
  answer: 'Twoja odpowiedź',
  save: 'Wyślij odpowiedź',
  saving: 'Wysyłanie…',
  update: 'Zmień odpowiedź',
  saved: 'Zapisano jako stałą odpowiedź. Osoba, która pytała, otrzymała Twoją odpowiedź.',
  current: 'Obecna odpowiedź',
  delete: 'Odrzuć',
  confirmDelete: 'Odrzucić to pytanie bez odpowiedzi?',
  keep: 'Zostaw',
  noWrite: 'Twoja rola pozwala widzieć te pytania, ale nie odpowiadać na nie.',
  more: 'Pokaż więcej',
};

export default pl;
