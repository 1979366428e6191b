import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'צוות',
  intro:
    'האנשים שעובדים על הצ׳אטבוט הזה. מנהלים יכולים לשנות הכול מלבד חיוב, בכל הצ׳אטבוטים; חברים מטפלים בשיחות, לידים וידע בצ׳אטבוטים שאליהם נוספו.',
  loading: 'טוען את הצוות…',
  empty: 'עדיין לא נוסף אף אחד לצ׳אטבוט הזה.',
  inviteHeading: 'הוספת אדם',
  email: 'דוא"ל',
  name: 'שם לתצוגה (רשות)',
  role: 'תפקיד',
  roleHelp: 'התפקיד חל על כל החשבון. מי שכבר בחשבון שומר על התפקיד שלו.',
  alsoOn: 'להוסיף גם אל',
  invite: 'הוספה לצוות',
  invited: '{email} נוסף.',
  owner: 'בעלים',
  admin: 'מנהל',
  member: 'חבר',
  you: 'את/ה',
  roleOf: 'התפקיד של {name}',
  roleChanged: '{name} הוא עכשיו {role}.',
  alsoOnList: 'גם ב: {names}',
  onlyHere: 'רק בצ׳אטבוט הזה',
  since: 'נוסף ב-{date}',
  remove: 'הסרה',
  removeText: 'להסיר את {name} מהצ׳אטבוט הזה? הוא נשאר בחשבון.',
  removeButton: 'הסרה מהצ׳אטבוט',
  cancel: 'ביטול',
  removed: '{name} הוסר מהצ׳אטבוט הזה.',
  failed: 'זה לא הצליח: {message}',
} satisfies Partial2<Strings>;
