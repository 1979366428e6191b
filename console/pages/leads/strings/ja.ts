import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'リード',
  lead: '訪問者が会話の中で残した連絡先です（新しい順）。',
  export: 'CSV をエクスポート',
  loading: 'リードを読み込んでいます…',
  empty:
    'まだリードはありません。「外観 → リード獲得」でリード獲得をオンにすると、訪問者が連絡先を残せるようになります。',
  count: '{count} 件のリード',
  captured: '取得日時',
  name: '名前',
  email: 'メールアドレス',
  phone: '電話番号',
  failed: 'リードを読み込めませんでした: {message}',
} satisfies Partial2<Strings>;
