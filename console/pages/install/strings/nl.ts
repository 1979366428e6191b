import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Installeren',
  intro: 'Zet de chatbot op uw website en in uw app, en laat hem weten wie uw ingelogde gebruikers zijn.',
  snippetHeading: 'Op uw website plaatsen',
  snippetText: 'Plak dit eenmaal op elke pagina waar de chatbel moet verschijnen, vlak voor </body>.',
  html: 'Gewone HTML',
  variant: 'Code voor',
  copy: 'Kopiëren',
  copied: 'Gekopieerd.',
  checkHeading: 'Mijn website controleren',
  checkText:
    'We laden de pagina vanaf de server en zoeken de code. Code die JavaScript pas na het laden toevoegt (React, Vue) is hier niet te zien: open de pagina en zoek de chatbel.',
  pageUrl: 'Adres van de pagina',
  check: 'Mijn website controleren',
  checking: 'Controleren…',
  found: 'De chatbot staat op {url}.',
  notFound: 'Geen code van deze chatbot op {url}. Plak de code hierboven in die pagina en controleer opnieuw.',
  otherBot: '{url} bevat de code van een andere chatbot. Vervang die door de code hierboven.',
  unreadable: '{url} kon niet worden gelezen: {reason}',
  failed: 'De controle lukte niet: {message}',
  mobileHeading: 'Mobiele apps',
  mobileText: 'Open dit adres in een webview: het is de chat op een eigen pagina.',
  identityHeading: 'Identiteitscontrole',
  identityText:
    'Ingelogde gebruikers worden op elk apparaat herkend zonder e-mailcode: uw server ondertekent hun e-mailadres met het identiteitsgeheim van de chatbot (HMAC-SHA256, hex) en de pagina geeft beide door aan de widget.',
  identifyText: 'Daarna, op pagina’s waar de gebruiker is ingelogd:',
  identifyLabel: 'identify-aanroep',
} satisfies Partial2<Strings>;
