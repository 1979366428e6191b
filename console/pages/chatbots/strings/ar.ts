import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'روبوتات الدردشة',
  lead: 'لكل روبوت دردشة معرفته ومظهره ومحادثاته الخاصة. اختر واحدًا للعمل عليه.',
  empty: 'لا توجد روبوتات دردشة بعد. أنشئ الأول: امنحه اسمًا، ثم أضف ما يجب أن يعرفه.',
  createHeading: 'روبوت دردشة جديد',
  name: 'الاسم',
  namePlaceholder: 'مثال: دعم Acme',
  create: 'إنشاء روبوت الدردشة',
  creating: 'جارٍ الإنشاء…',
  created: 'تم إنشاء {name}. الخطوة التالية: في صفحة المعرفة، أضف الصفحات التي يجيب منها.',
  open: 'فتح',
  selected: 'محدد',
  createdOn: 'أُنشئ في {date}',
  rename: 'إعادة التسمية',
  renameLabel: 'اسم جديد لـ {name}',
  save: 'حفظ',
  cancel: 'إلغاء',
  renamed: 'أُعيدت التسمية إلى {name}.',
  delete: 'حذف',
  deleteHeading: 'حذف {name}؟',
  deleteText:
    'سيؤدي هذا إلى حذف روبوت الدردشة مع كل معرفته ومحادثاته وعملائه المحتملين وإعداداته. لا يمكن التراجع عن ذلك.',
  deleteConfirm: 'اكتب الاسم للتأكيد',
  deleteButton: 'حذف نهائي',
  deleted: 'تم حذف {name}.',
  failed: 'لم ينجح ذلك: {message}',
  limit: 'لا تسمح خطتك بمزيد من روبوتات الدردشة. احذف واحدًا أو اطلب من المشغّل رفع الحد.',
} satisfies Partial2<Strings>;
