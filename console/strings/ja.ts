import type { Partial2 } from '../i18n/index.js';
import type { Strings } from './en.js';

export default {
  skipToContent: '本文へスキップ',
  signIn: {
    title: 'Parley にサインイン',
    lead: '管理者が設定したメールアドレスとパスワードを使ってください。',
    email: 'メールアドレス',
    password: 'パスワード',
    submit: 'サインイン',
    busy: 'サインインしています…',
    wrong: 'メールアドレスとパスワードが一致しません。両方を確認して、もう一度お試しください。',
    throttled: '試行回数が多すぎます。{minutes} 分後にもう一度お試しください。',
    ended: 'セッションが終了しました。続けるには、もう一度サインインしてください。',
    noPassword:
      'パスワードがまだない場合は、運用担当者が次のコマンドで設定します: npm run cli -- users set-password --email you@example.com',
  },
  setup: {
    title: 'Parley へようこそ',
    lead: 'オーナーとしてサインインするパスワードを決めてください。このリンクは 1 回だけ使えます。',
    password: '新しいパスワード',
    repeat: '同じパスワードをもう一度',
    hint: '10 文字以上。',
    submit: '保存してサインイン',
    busy: '保存しています…',
    mismatch: '2 つのパスワードが一致しません。',
    invalid: 'このセットアップリンクはもう使えません（使用済みか期限切れです）。パスワードでサインインしてください。',
    toSignIn: 'サインインへ',
  },
  firstRun:
    '初回起動: まだ誰もパスワードを持っていません。サーバーが起動時 (npm start) に表示したセットアップリンクを開いて、パスワードを決めてください。',
  header: {
    chatbot: 'チャットボット',
    noChatbots: 'チャットボットはまだありません',
    account: 'アカウント',
    signedInAs: '{email} としてサインイン中',
    role: {
      owner: 'オーナー',
      admin: '管理者',
      member: 'メンバー',
    },
    language: '言語',
    name: 'あなたの名前',
    nameHint: '訪問者にはあなたの返信に表示されます。空欄の場合は「サポートチーム」。',
    saveName: '名前を保存',
    nameSaved: '保存しました。',
    signOut: 'サインアウト',
    signOutEverywhere: 'すべての端末でサインアウト',
  },
  nav: {
    label: 'コンソール',
    chatbotPages: 'このチャットボット',
    accountPages: 'アカウント',
  },
  loading: '読み込み中…',
  notFound: 'このページは存在しません。',
  chatbotNotFound: 'このチャットボットは存在しないか、アクセス権がありません。',
  failed: '問題が発生しました: {message}',
  retry: '再試行',
  backToChatbots: 'チャットボット一覧へ',
} satisfies Partial2<Strings>;
