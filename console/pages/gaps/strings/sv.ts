import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

const sv: Partial2<Strings> = {
  title: 'Kunskapsluckor',
  lead: 'Frågor från besökare som din chattbot inte kunde besvara. Svara här: ditt svar skickas till besökaren som frågade och ges till alla som frågar samma sak senare.',
  show: 'Visa',
  open: 'Obesvarade',
  answered: 'Besvarade',
  none: 'Inga obesvarade frågor. Bra jobbat.',
  noneAnswered: 'Inga frågor har besvarats här ännu.',
  asked: 'Ställd {date}',
  answeredOn: 'Besvarad {date}',
  answer: 'Ditt svar',
  save: 'Skicka svar',
  saving: 'Skickar…',
  update: 'Ändra svar',
  saved: 'Sparat som eget svar. Besökaren som frågade har fått ditt svar.',
  current: 'Nuvarande svar',
  delete: 'Avfärda',
  confirmDelete: 'Avfärda frågan utan att svara?',
  keep: 'Behåll',
  noWrite: 'Din roll kan se frågorna men inte besvara dem.',
  more: 'Visa fler',
};

export default sv;
