import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Installér',
  intro: 'Sæt chatbotten på dit website og i din app, og fortæl den, hvem dine indloggede brugere er.',
  snippetHeading: 'Tilføj den til dit website',
  snippetText: 'Indsæt dette én gang på hver side, hvor chatboblen skal vises, lige før </body>.',
  html: 'Ren HTML',
  variant: 'Kode til',
  copy: 'Kopiér',
  copied: 'Kopieret.',
  checkHeading: 'Tjek mit website',
  checkText:
    'Vi henter siden fra serveren og leder efter koden. Kode, som JavaScript tilføjer efter indlæsning (React, Vue), ses ikke her: åbn siden og se efter boblen.',
  pageUrl: 'Sidens adresse',
  check: 'Tjek mit website',
  checking: 'Tjekker…',
  found: 'Chatbotten er installeret på {url}.',
  notFound: 'Ingen kode til denne chatbot på {url}. Indsæt koden ovenfor på siden, og tjek igen.',
  otherBot: '{url} har koden til en anden chatbot. Erstat den med koden ovenfor.',
  unreadable: '{url} kunne ikke læses: {reason}',
  failed: 'Tjekket lykkedes ikke: {message}',
  mobileHeading: 'Mobilapps',
  mobileText: 'Åbn denne adresse i en webview: det er chatten på sin egen side.',
  identityHeading: 'Identitetsbekræftelse',
  identityText:
    'Indloggede brugere genkendes på alle enheder uden e-mailkode: din server signerer deres e-mail med chatbottens identitetshemmelighed (HMAC-SHA256, hex), og siden giver begge til widgetten.',
  identifyText: 'Derefter, på sider hvor brugeren er logget ind:',
  identifyLabel: 'identify-kald',
} satisfies Partial2<Strings>;
