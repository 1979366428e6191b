import type { Partial2 } from '../i18n/index.js';
import type { Strings } from './en.js';

export default {
  skipToContent: 'Hoppa till innehållet',
  signIn: {
    title: 'Logga in på Parley',
    lead: 'Använd e-postadressen och lösenordet som din administratör har angett åt dig.',
    email: 'E-post',
    password: 'Lösenord',
    submit: 'Logga in',
    busy: 'Loggar in…',
    wrong: 'E-postadressen och lösenordet stämmer inte. Kontrollera båda och försök igen.',
    throttled: 'För många försök. Försök igen om {minutes} minuter.',
    ended: 'Din session har upphört. Logga in igen för att fortsätta.',
    noPassword:
      'Inget lösenord än? En operatör anger det med: npm run cli -- users set-password --email du@example.com',
  },
  setup: {
    title: 'Välkommen till Parley',
    lead: 'Välj lösenordet som du, ägaren, loggar in med. Länken fungerar en gång.',
    password: 'Nytt lösenord',
    repeat: 'Samma lösenord igen',
    hint: 'Minst 10 tecken.',
    submit: 'Spara och logga in',
    busy: 'Sparar…',
    mismatch: 'Lösenorden är olika.',
    invalid:
      'Den här konfigurationslänken fungerar inte längre: den har använts eller gått ut. Logga in med ditt lösenord i stället.',
    toSignIn: 'Till inloggningen',
  },
  firstRun:
    'Första start: ingen har ett lösenord än. Öppna konfigurationslänken som servern skrev ut vid start (npm start) för att välja ditt.',
  header: {
    chatbot: 'Chattbot',
    noChatbots: 'Inga chattbotar än',
    account: 'Konto',
    signedInAs: 'Inloggad som {email}',
    role: {
      owner: 'Ägare',
      admin: 'Administratör',
      member: 'Medlem',
    },
    language: 'Språk',
    name: 'Ditt namn',
    nameHint: 'Besökare ser det på dina svar. Tomt: ”Supportteamet”.',
    saveName: 'Spara namn',
    nameSaved: 'Sparat.',
    signOut: 'Logga ut',
    signOutEverywhere: 'Logga ut överallt',
  },
  nav: {
    label: 'Konsol',
    chatbotPages: 'Den här chattboten',
    accountPages: 'Konto',
  },
  loading: 'Laddar…',
  notFound: 'Sidan finns inte.',
  chatbotNotFound: 'Chattboten finns inte, eller så har du inte åtkomst till den.',
  failed: 'Något gick fel: {message}',
  retry: 'Försök igen',
  backToChatbots: 'Till dina chattbotar',
} satisfies Partial2<Strings>;
