import type { Partial2 } from '../i18n/index.js';
import type { Strings } from './en.js';

export default {
  skipToContent: 'انتقل إلى المحتوى',
  signIn: {
    title: 'تسجيل الدخول إلى Parley',
    lead: 'استخدم البريد الإلكتروني وكلمة المرور اللذين عيّنهما لك المسؤول.',
    email: 'البريد الإلكتروني',
    password: 'كلمة المرور',
    submit: 'تسجيل الدخول',
    busy: 'جارٍ تسجيل الدخول…',
    wrong: 'البريد الإلكتروني وكلمة المرور غير متطابقين. تحقق منهما وحاول مرة أخرى.',
    throttled: 'محاولات كثيرة جدًا. حاول مرة أخرى بعد {minutes} دقيقة.',
    ended: 'انتهت جلستك. سجّل الدخول مرة أخرى للمتابعة.',
    noPassword:
      'ليست لديك كلمة مرور بعد؟ يعيّنها المشغّل بالأمر: npm run cli -- users set-password --email you@example.com',
  },
  setup: {
    title: 'مرحبًا بك في Parley',
    lead: 'اختر كلمة المرور التي ستسجّل بها الدخول بصفتك المالك. يعمل هذا الرابط مرة واحدة.',
    password: 'كلمة مرور جديدة',
    repeat: 'كلمة المرور نفسها مرة أخرى',
    hint: '10 أحرف على الأقل.',
    submit: 'حفظ وتسجيل الدخول',
    busy: 'جارٍ الحفظ…',
    mismatch: 'كلمتا المرور مختلفتان.',
    invalid: 'رابط الإعداد هذا لم يعد يعمل: استُخدم أو انتهت صلاحيته. سجّل الدخول بكلمة مرورك بدلًا من ذلك.',
    toSignIn: 'الانتقال إلى تسجيل الدخول',
  },
  firstRun:
    'التشغيل الأول: لا يملك أحد كلمة مرور بعد. افتح رابط الإعداد الذي طبعه الخادم عند بدء التشغيل (npm start) لاختيار كلمة مرورك.',
  header: {
    chatbot: 'روبوت الدردشة',
    noChatbots: 'لا توجد روبوتات دردشة بعد',
    account: 'الحساب',
    signedInAs: 'مسجّل الدخول باسم {email}',
    role: {
      owner: 'المالك',
      admin: 'مسؤول',
      member: 'عضو',
    },
    language: 'اللغة',
    name: 'اسمك',
    nameHint: 'يراه الزوار على ردودك. إذا تُرك فارغًا: "فريق الدعم".',
    saveName: 'حفظ الاسم',
    nameSaved: 'تم الحفظ.',
    signOut: 'تسجيل الخروج',
    signOutEverywhere: 'تسجيل الخروج من كل الأجهزة',
  },
  nav: {
    label: 'وحدة التحكم',
    chatbotPages: 'روبوت الدردشة هذا',
    accountPages: 'الحساب',
  },
  loading: 'جارٍ التحميل…',
  notFound: 'هذه الصفحة غير موجودة.',
  chatbotNotFound: 'روبوت الدردشة هذا غير موجود، أو ليس لديك صلاحية الوصول إليه.',
  failed: 'حدث خطأ: {message}',
  retry: 'حاول مرة أخرى',
  backToChatbots: 'انتقل إلى روبوتات الدردشة',
} satisfies Partial2<Strings>;
