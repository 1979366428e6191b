import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'לידים',
  lead: 'פרטי קשר שמבקרים השאירו בשיחות, החדשים ביותר קודם.',
  export: 'ייצוא CSV',
  loading: 'טוען לידים…',
  empty: 'אין עדיין לידים. הפעילו איסוף פרטי קשר תחת מראה ← איסוף פרטי קשר, ומבקרים יוכלו להשאיר את פרטיהם.',
  count: '{count} לידים',
  captured: 'התקבל',
  name: 'שם',
  email: 'דוא"ל',
  phone: 'טלפון',
  failed: 'לא ניתן היה לטעון את הלידים: {message}',
} satisfies Partial2<Strings>;
