import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'チーム',
  intro:
    'このチャットボットに携わるメンバーです。管理者は請求以外のすべてをすべてのチャットボットで変更でき、メンバーは追加されたチャットボットの会話、リード、ナレッジを扱えます。',
  loading: 'チームを読み込んでいます…',
  empty: 'このチャットボットにはまだ誰も追加されていません。',
  inviteHeading: 'メンバーを追加',
  email: 'メールアドレス',
  name: '表示名（任意）',
  role: 'ロール',
  roleHelp: 'ロールはアカウント全体に適用されます。既にアカウントにいる人のロールは変わりません。',
  alsoOn: '次のチャットボットにも追加',
  invite: 'チームに追加',
  invited: '{email} を追加しました。',
  owner: 'オーナー',
  admin: '管理者',
  member: 'メンバー',
  you: 'あなた',
  roleOf: '{name} のロール',
  roleChanged: '{name} は {role} になりました。',
  alsoOnList: 'ほかの担当: {names}',
  onlyHere: 'このチャットボットのみ',
  since: '追加日 {date}',
  remove: '外す',
  removeText: '{name} をこのチャットボットから外しますか？アカウントには残ります。',
  removeButton: 'チャットボットから外す',
  cancel: 'キャンセル',
  removed: '{name} をこのチャットボットから外しました。',
  failed: 'うまくいきませんでした: {message}',
} satisfies Partial2<Strings>;
