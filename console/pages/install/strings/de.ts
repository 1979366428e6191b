import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Einbinden',
  intro:
    'Bringen Sie den Chatbot auf Ihre Website und in Ihre App, und sagen Sie ihm, wer Ihre angemeldeten Nutzer sind.',
  snippetHeading: 'Auf Ihrer Website einbinden',
  snippetText: 'Fügen Sie dies einmal auf jeder Seite ein, auf der die Chat-Blase erscheinen soll, direkt vor </body>.',
  html: 'Reines HTML',
  variant: 'Code für',
  copy: 'Kopieren',
  copied: 'Kopiert.',
  checkHeading: 'Meine Website prüfen',
  checkText:
    'Wir laden die Seite vom Server und suchen das Snippet. Ein Snippet, das JavaScript erst nach dem Laden einfügt (React, Vue), ist hier nicht sichtbar: Öffnen Sie die Seite und suchen Sie die Blase.',
  pageUrl: 'Adresse der Seite',
  check: 'Meine Website prüfen',
  checking: 'Wird geprüft…',
  found: 'Der Chatbot ist auf {url} eingebunden.',
  notFound:
    'Kein Snippet für diesen Chatbot auf {url}. Fügen Sie das Snippet oben in die Seite ein und prüfen Sie erneut.',
  otherBot: '{url} enthält ein Snippet eines anderen Chatbots. Ersetzen Sie es durch das Snippet oben.',
  unreadable: '{url} konnte nicht gelesen werden: {reason}',
  failed: 'Die Prüfung hat nicht geklappt: {message}',
  mobileHeading: 'Mobile Apps',
  mobileText: 'Öffnen Sie diese Adresse in einer Webview: Das ist der Chat auf einer eigenen Seite.',
  identityHeading: 'Identitätsprüfung',
  identityText:
    'Angemeldete Nutzer werden auf jedem Gerät ohne E-Mail-Code erkannt: Ihr Server signiert ihre E-Mail-Adresse mit dem Identitätsschlüssel des Chatbots (HMAC-SHA256, hex), und die Seite gibt beides an das Widget.',
  identifyText: 'Dann auf Seiten, auf denen der Nutzer angemeldet ist:',
  identifyLabel: 'identify-Aufruf',
} satisfies Partial2<Strings>;
