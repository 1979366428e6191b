import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'الفريق',
  intro:
    'الأشخاص الذين يعملون على روبوت الدردشة هذا. يستطيع المشرفون تغيير كل شيء عدا الفوترة في كل الروبوتات؛ ويتولى الأعضاء المحادثات والعملاء المحتملين والمعرفة في الروبوتات التي أُضيفوا إليها.',
  loading: 'جارٍ تحميل الفريق…',
  empty: 'لم يُضف أحد إلى روبوت الدردشة هذا بعد.',
  inviteHeading: 'إضافة شخص',
  email: 'البريد الإلكتروني',
  name: 'الاسم الظاهر (اختياري)',
  role: 'الدور',
  roleHelp: 'ينطبق الدور على الحساب كله. من هو في الحساب مسبقًا يحتفظ بدوره.',
  alsoOn: 'أضفه أيضًا إلى',
  invite: 'إضافة إلى الفريق',
  invited: 'تمت إضافة {email}.',
  owner: 'المالك',
  admin: 'مشرف',
  member: 'عضو',
  you: 'أنت',
  roleOf: 'دور {name}',
  roleChanged: 'أصبح {name} الآن {role}.',
  alsoOnList: 'أيضًا في: {names}',
  onlyHere: 'في هذا الروبوت فقط',
  since: 'أُضيف في {date}',
  remove: 'إزالة',
  removeText: 'إزالة {name} من روبوت الدردشة هذا؟ سيبقى في الحساب.',
  removeButton: 'إزالة من الروبوت',
  cancel: 'تراجع',
  removed: 'تمت إزالة {name} من روبوت الدردشة هذا.',
  failed: 'لم ينجح ذلك: {message}',
} satisfies Partial2<Strings>;
