import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Installera',
  intro: 'Lägg chattboten på din webbplats och i din app, och berätta vilka dina inloggade användare är.',
  snippetHeading: 'Lägg till den på din webbplats',
  snippetText: 'Klistra in detta en gång på varje sida där chattbubblan ska synas, precis före </body>.',
  html: 'Ren HTML',
  variant: 'Kod för',
  copy: 'Kopiera',
  copied: 'Kopierat.',
  checkHeading: 'Kontrollera min webbplats',
  checkText:
    'Vi hämtar sidan från servern och letar efter koden. Kod som JavaScript lägger till efter inläsningen (React, Vue) syns inte här: öppna sidan och leta efter bubblan.',
  pageUrl: 'Sidans adress',
  check: 'Kontrollera min webbplats',
  checking: 'Kontrollerar…',
  found: 'Chattboten är installerad på {url}.',
  notFound: 'Ingen kod för den här chattboten på {url}. Klistra in koden ovan på sidan och kontrollera igen.',
  otherBot: '{url} har koden för en annan chattbot. Ersätt den med koden ovan.',
  unreadable: '{url} kunde inte läsas: {reason}',
  failed: 'Kontrollen fungerade inte: {message}',
  mobileHeading: 'Mobilappar',
  mobileText: 'Öppna den här adressen i en webbvy: det är chatten på en egen sida.',
  identityHeading: 'Identitetsverifiering',
  identityText:
    'Inloggade användare känns igen på alla enheter utan e-postkod: din server signerar deras e-post med chattbotens identitetshemlighet (HMAC-SHA256, hex) och sidan skickar båda till widgeten.',
  identifyText: 'Sedan, på sidor där användaren är inloggad:',
  identifyLabel: 'identify-anrop',
} satisfies Partial2<Strings>;
