import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'התקנה',
  intro: 'שימו את הצ׳אטבוט באתר ובאפליקציה שלכם, וספרו לו מי המשתמשים המחוברים.',
  snippetHeading: 'הוספה לאתר',
  snippetText: 'הדביקו את זה פעם אחת בכל עמוד שבו בועת הצ׳אט צריכה להופיע, ממש לפני </body>.',
  html: 'HTML רגיל',
  variant: 'קוד עבור',
  copy: 'העתקה',
  copied: 'הועתק.',
  checkHeading: 'בדיקת האתר שלי',
  checkText:
    'אנחנו טוענים את העמוד מהשרת ומחפשים את הקוד. קוד ש-JavaScript מוסיף אחרי הטעינה (React, Vue) לא נראה כאן: פתחו את העמוד וחפשו את הבועה.',
  pageUrl: 'כתובת העמוד',
  check: 'בדיקת האתר שלי',
  checking: 'בודק…',
  found: 'הצ׳אטבוט מותקן ב-{url}.',
  notFound: 'אין קוד של הצ׳אטבוט הזה ב-{url}. הדביקו את הקוד שלמעלה בעמוד ובדקו שוב.',
  otherBot: 'ב-{url} יש קוד של צ׳אטבוט אחר. החליפו אותו בקוד שלמעלה.',
  unreadable: 'לא ניתן היה לקרוא את {url}: {reason}',
  failed: 'הבדיקה לא הצליחה: {message}',
  mobileHeading: 'אפליקציות לנייד',
  mobileText: 'פתחו את הכתובת הזו ב-WebView: זה הצ׳אט בעמוד משלו.',
  identityHeading: 'אימות זהות',
  identityText:
    'משתמשים מחוברים מזוהים בכל מכשיר בלי קוד בדוא"ל: השרת שלכם חותם על הדוא"ל שלהם בסוד הזהות של הצ׳אטבוט (HMAC-SHA256, הקסדצימלי), והעמוד מעביר את שניהם לווידג׳ט.',
  identifyText: 'ואז, בעמודים שבהם המשתמש מחובר:',
  identifyLabel: 'קריאת identify',
} satisfies Partial2<Strings>;
