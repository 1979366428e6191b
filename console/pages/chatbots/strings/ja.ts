import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'チャットボット',
  lead: 'チャットボットごとに、ナレッジ、見た目、会話が分かれています。作業するチャットボットを選んでください。',
  empty:
    'チャットボットはまだありません。最初のチャットボットを作成し、名前を付けてから、覚えさせる内容を追加しましょう。',
  createHeading: '新しいチャットボット',
  name: '名前',
  namePlaceholder: '例: Acme サポート',
  create: 'チャットボットを作成',
  creating: '作成中…',
  created: '{name} を作成しました。次に、ナレッジで回答のもとになるページを追加してください。',
  open: '開く',
  selected: '選択中',
  createdOn: '作成日 {date}',
  rename: '名前を変更',
  renameLabel: '{name} の新しい名前',
  save: '保存',
  cancel: 'キャンセル',
  renamed: '名前を {name} に変更しました。',
  delete: '削除',
  deleteHeading: '{name} を削除しますか？',
  deleteText: 'チャットボットと、そのナレッジ、会話、リード、設定がすべて削除されます。元に戻すことはできません。',
  deleteConfirm: '確認のため名前を入力してください',
  deleteButton: '完全に削除',
  deleted: '{name} を削除しました。',
  failed: 'うまくいきませんでした: {message}',
  limit:
    'ご利用のプランではこれ以上チャットボットを作成できません。1 つ削除するか、運用担当者に上限の引き上げを依頼してください。',
} satisfies Partial2<Strings>;
