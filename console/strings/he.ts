import type { Partial2 } from '../i18n/index.js';
import type { Strings } from './en.js';

export default {
  skipToContent: 'דילוג לתוכן',
  signIn: {
    title: 'כניסה ל-Parley',
    lead: 'השתמשו בכתובת הדוא"ל ובסיסמה שהמנהל הגדיר עבורכם.',
    email: 'דוא"ל',
    password: 'סיסמה',
    submit: 'כניסה',
    busy: 'נכנסים…',
    wrong: 'כתובת הדוא"ל והסיסמה אינן תואמות. בדקו את שתיהן ונסו שוב.',
    throttled: 'יותר מדי ניסיונות. נסו שוב בעוד {minutes} דקות.',
    ended: 'ההפעלה הסתיימה. היכנסו שוב כדי להמשיך.',
    noPassword:
      'אין לכם סיסמה עדיין? מפעיל המערכת מגדיר אותה עם: npm run cli -- users set-password --email you@example.com',
  },
  setup: {
    title: 'ברוכים הבאים ל-Parley',
    lead: 'בחרו את הסיסמה שבה תיכנסו כבעלים. הקישור הזה עובד פעם אחת.',
    password: 'סיסמה חדשה',
    repeat: 'אותה סיסמה שוב',
    hint: 'לפחות 10 תווים.',
    submit: 'שמירה וכניסה',
    busy: 'שומר…',
    mismatch: 'שתי הסיסמאות שונות.',
    invalid: 'קישור ההגדרה הזה כבר לא עובד: הוא נוצל או שפג תוקפו. היכנסו עם הסיסמה שלכם.',
    toSignIn: 'למסך הכניסה',
  },
  firstRun:
    'הפעלה ראשונה: לאף אחד עדיין אין סיסמה. פתחו את קישור ההגדרה שהשרת הדפיס בהפעלה (npm start) כדי לבחור סיסמה.',
  header: {
    chatbot: "צ'אטבוט",
    noChatbots: "אין עדיין צ'אטבוטים",
    account: 'חשבון',
    signedInAs: 'מחובר/ת בתור {email}',
    role: {
      owner: 'בעלים',
      admin: 'מנהל',
      member: 'חבר צוות',
    },
    language: 'שפה',
    name: 'השם שלך',
    nameHint: 'המבקרים רואים אותו בתשובות שלך. ריק: "צוות התמיכה".',
    saveName: 'שמירת השם',
    nameSaved: 'נשמר.',
    signOut: 'יציאה',
    signOutEverywhere: 'יציאה מכל המכשירים',
  },
  nav: {
    label: 'מסוף',
    chatbotPages: "הצ'אטבוט הזה",
    accountPages: 'חשבון',
  },
  loading: 'טוען…',
  notFound: 'הדף הזה לא קיים.',
  chatbotNotFound: "הצ'אטבוט הזה לא קיים, או שאין לכם גישה אליו.",
  failed: 'משהו השתבש: {message}',
  retry: 'ניסיון נוסף',
  backToChatbots: "לצ'אטבוטים שלכם",
} satisfies Partial2<Strings>;
