import type { Partial2 } from '../i18n/index.js';
import type { Strings } from './en.js';

export default {
  skipToContent: 'Naar de inhoud',
  signIn: {
    title: 'Aanmelden bij Parley',
    lead: 'Gebruik het e-mailadres en wachtwoord die je beheerder voor je heeft ingesteld.',
    email: 'E-mail',
    password: 'Wachtwoord',
    submit: 'Aanmelden',
    busy: 'Bezig met aanmelden…',
    wrong: 'E-mailadres en wachtwoord horen niet bij elkaar. Controleer beide en probeer het opnieuw.',
    throttled: 'Te veel pogingen. Probeer het over {minutes} minuten opnieuw.',
    ended: 'Je sessie is beëindigd. Meld je opnieuw aan om verder te gaan.',
    noPassword:
      'Nog geen wachtwoord? Een beheerder stelt het in met: npm run cli -- users set-password --email jij@example.com',
  },
  setup: {
    title: 'Welkom bij Parley',
    lead: 'Kies het wachtwoord waarmee jij, de eigenaar, je aanmeldt. Deze link werkt één keer.',
    password: 'Nieuw wachtwoord',
    repeat: 'Hetzelfde wachtwoord nog eens',
    hint: 'Minstens 10 tekens.',
    submit: 'Opslaan en aanmelden',
    busy: 'Bezig met opslaan…',
    mismatch: 'De twee wachtwoorden verschillen.',
    invalid: 'Deze instellink werkt niet meer: hij is gebruikt of verlopen. Meld je aan met je wachtwoord.',
    toSignIn: 'Naar aanmelden',
  },
  firstRun:
    'Eerste start: nog niemand heeft een wachtwoord. Open de instellink die de server bij het starten (npm start) toonde om het jouwe te kiezen.',
  header: {
    chatbot: 'Chatbot',
    noChatbots: 'Nog geen chatbots',
    account: 'Account',
    signedInAs: 'Aangemeld als {email}',
    role: {
      owner: 'Eigenaar',
      admin: 'Beheerder',
      member: 'Lid',
    },
    language: 'Taal',
    name: 'Je naam',
    nameHint: 'Bezoekers zien hem bij je antwoorden. Leeg: "Supportteam".',
    saveName: 'Naam opslaan',
    nameSaved: 'Opgeslagen.',
    signOut: 'Afmelden',
    signOutEverywhere: 'Overal afmelden',
  },
  nav: {
    label: 'Console',
    chatbotPages: 'Deze chatbot',
    accountPages: 'Account',
  },
  loading: 'Laden…',
  notFound: 'Deze pagina bestaat niet.',
  chatbotNotFound: 'Deze chatbot bestaat niet, of je hebt er geen toegang toe.',
  failed: 'Er ging iets mis: {message}',
  retry: 'Opnieuw proberen',
  backToChatbots: 'Naar je chatbots',
} satisfies Partial2<Strings>;
