import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

const ja: Partial2<Strings> = {
  title: '未回答の質問',
  lead: 'チャットボットが答えられなかった訪問者の質問です。ここで回答すると、質問した訪問者に送られ、今後同じ質問をした人にもその回答が返されます。',
  show: '表示',
  open: '未回答',
  answered: '回答済み',
  none: '未回答の質問はありません。',
  noneAnswered: 'ここで回答した質問はまだありません。',
  asked: '質問日時：{date}',
  answeredOn: '回答日時：{date}',
  answer: '回答',
  save: '回答を送信',
  saving: '送信しています…',
  update: '回答を変更',
  saved: 'カスタム回答として保存しました。質問した訪問者にあなたの回答を送りました。',
  current: '現在の回答',
  delete: '却下',
  confirmDelete: 'この質問に回答せずに却下しますか？',
  keep: 'そのままにする',
  noWrite: 'あなたのロールではこれらの質問を閲覧できますが、回答はできません。',
  more: 'さらに表示',
};

export default ja;
