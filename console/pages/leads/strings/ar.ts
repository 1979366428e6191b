import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'العملاء المحتملون',
  lead: 'بيانات الاتصال التي تركها الزوار في المحادثات، الأحدث أولاً.',
  export: 'تصدير CSV',
  loading: 'جارٍ تحميل العملاء المحتملين…',
  empty:
    'لا يوجد عملاء محتملون بعد. فعّل جمع بيانات الاتصال من المظهر ← جمع بيانات الاتصال ليتمكن الزوار من ترك بياناتهم.',
  count: 'عدد العملاء المحتملين: {count}',
  captured: 'تاريخ الاستلام',
  name: 'الاسم',
  email: 'البريد الإلكتروني',
  phone: 'الهاتف',
  failed: 'تعذّر تحميل العملاء المحتملين: {message}',
} satisfies Partial2<Strings>;
