import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

const he: Partial2<Strings> = {
  title: 'פערי ידע',
  lead: 'שאלות של מבקרים שהצ׳אטבוט לא ידע לענות עליהן. ענו כאן: התשובה נשלחת למבקר ששאל, ותינתן לכל מי שישאל אותה בהמשך.',
  show: 'הצגה',
  open: 'ללא מענה',
  answered: 'נענו',
  none: 'אין שאלות ללא מענה. כל הכבוד.',
  noneAnswered: 'עדיין לא נענתה כאן אף שאלה.',
  asked: 'נשאלה {date}',
  answeredOn: 'נענתה {date}',
  answer: 'התשובה שלך',
  save: 'שליחת התשובה',
  saving: 'שולח…',
  update: 'שינוי התשובה',
  saved: 'נשמרה כתשובה מותאמת. המבקר ששאל קיבל את התשובה שלך.',
  current: 'התשובה הנוכחית',
  delete: 'דחייה',
  confirmDelete: 'לדחות את השאלה הזו בלי לענות?',
  keep: 'להשאיר',
  noWrite: 'התפקיד שלך מאפשר לראות את השאלות האלה אבל לא לענות עליהן.',
  more: 'הצגת עוד',
};

export default he;
