import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: '設置',
  intro: 'チャットボットをサイトやアプリに設置し、ログイン中のユーザーが誰かを伝えます。',
  snippetHeading: 'サイトに追加',
  snippetText: 'チャットバブルを表示したいすべてのページの </body> の直前に、これを 1 回貼り付けてください。',
  html: 'HTML',
  variant: 'コードの種類',
  copy: 'コピー',
  copied: 'コピーしました。',
  checkHeading: 'サイトを確認',
  checkText:
    'サーバーからページを読み込み、コードを探します。読み込み後に JavaScript で追加されるコード（React、Vue）はここでは見つかりません。ページを開いてバブルを確認してください。',
  pageUrl: 'ページのアドレス',
  check: 'サイトを確認',
  checking: '確認しています…',
  found: '{url} にチャットボットが設置されています。',
  notFound:
    '{url} にこのチャットボットのコードがありません。上のコードをそのページに貼り付けて、もう一度確認してください。',
  otherBot: '{url} には別のチャットボットのコードがあります。上のコードに置き換えてください。',
  unreadable: '{url} を読み込めませんでした: {reason}',
  failed: '確認できませんでした: {message}',
  mobileHeading: 'モバイルアプリ',
  mobileText: 'このアドレスを WebView で開いてください。チャット専用のページです。',
  identityHeading: '本人確認',
  identityText:
    'ログイン中のユーザーを、メールのコードなしでどの端末でも識別できます。サーバーでユーザーのメールアドレスをチャットボットの本人確認シークレットで署名し（HMAC-SHA256、16 進数）、ページから両方をウィジェットに渡します。',
  identifyText: '次に、ユーザーがログインしているページで:',
  identifyLabel: 'identify の呼び出し',
} satisfies Partial2<Strings>;
