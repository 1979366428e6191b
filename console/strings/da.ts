import type { Partial2 } from '../i18n/index.js';
import type { Strings } from './en.js';

export default {
  skipToContent: 'Gå til indhold',
  signIn: {
    title: 'Log ind på Parley',
    lead: 'Brug den e-mail og adgangskode, din administrator har oprettet til dig.',
    email: 'E-mail',
    password: 'Adgangskode',
    submit: 'Log ind',
    busy: 'Logger ind…',
    wrong: 'E-mail og adgangskode passer ikke sammen. Tjek begge og prøv igen.',
    throttled: 'For mange forsøg. Prøv igen om {minutes} minutter.',
    ended: 'Din session er udløbet. Log ind igen for at fortsætte.',
    noPassword:
      'Ingen adgangskode endnu? En operatør opretter den med: npm run cli -- users set-password --email dig@example.com',
  },
  setup: {
    title: 'Velkommen til Parley',
    lead: 'Vælg den adgangskode, du som ejer vil logge ind med. Linket virker én gang.',
    password: 'Ny adgangskode',
    repeat: 'Den samme adgangskode igen',
    hint: 'Mindst 10 tegn.',
    submit: 'Gem og log ind',
    busy: 'Gemmer…',
    mismatch: 'De to adgangskoder er forskellige.',
    invalid:
      'Dette opsætningslink virker ikke længere: det er brugt eller udløbet. Log ind med din adgangskode i stedet.',
    toSignIn: 'Gå til login',
  },
  firstRun:
    'Første start: ingen har en adgangskode endnu. Åbn opsætningslinket, som serveren viste ved start (npm start), for at vælge din.',
  header: {
    chatbot: 'Chatbot',
    noChatbots: 'Ingen chatbots endnu',
    account: 'Konto',
    signedInAs: 'Logget ind som {email}',
    role: {
      owner: 'Ejer',
      admin: 'Administrator',
      member: 'Medlem',
    },
    language: 'Sprog',
    name: 'Dit navn',
    nameHint: 'Besøgende ser det på dine svar. Tomt: "Supportteam".',
    saveName: 'Gem navn',
    nameSaved: 'Gemt.',
    signOut: 'Log ud',
    signOutEverywhere: 'Log ud overalt',
  },
  nav: {
    label: 'Konsol',
    chatbotPages: 'Denne chatbot',
    accountPages: 'Konto',
  },
  loading: 'Indlæser…',
  notFound: 'Denne side findes ikke.',
  chatbotNotFound: 'Denne chatbot findes ikke, eller du har ikke adgang til den.',
  failed: 'Noget gik galt: {message}',
  retry: 'Prøv igen',
  backToChatbots: 'Gå til dine chatbots',
} satisfies Partial2<Strings>;
