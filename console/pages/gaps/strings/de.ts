import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

const de: Partial2<Strings> = {
  title: 'Wissenslücken',
  lead: 'Fragen von Besuchern, die Ihr Chatbot nicht beantworten konnte. Beantworten Sie eine hier: Ihre Antwort geht an den Besucher, der gefragt hat, und an alle, die sie künftig stellen.',
  show: 'Anzeigen',
  open: 'Unbeantwortet',
  answered: 'Beantwortet',
  none: 'Keine unbeantworteten Fragen. Gut gemacht.',
  noneAnswered: 'Hier wurde noch keine Frage beantwortet.',
  asked: 'Gefragt {date}',
  answeredOn: 'Beantwortet {date}',
  answer: 'Ihre Antwort',
  save: 'Antwort senden',
  saving: 'Wird gesendet…',
  update: 'Antwort ändern',
  saved: 'Als feste Antwort gespeichert. Der Besucher, der gefragt hat, hat Ihre Antwort erhalten.',
  current: 'Aktuelle Antwort',
  delete: 'Verwerfen',
  confirmDelete: 'Diese Frage verwerfen, ohne sie zu beantworten?',
  keep: 'Behalten',
  noWrite: 'Ihre Rolle darf diese Fragen sehen, aber nicht beantworten.',
  more: 'Mehr zeigen',
};

export default de;
