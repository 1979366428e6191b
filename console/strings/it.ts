import type { Partial2 } from '../i18n/index.js';
import type { Strings } from './en.js';

export default {
  skipToContent: 'Vai al contenuto',
  signIn: {
    title: 'Accedi a Parley',
    lead: "Usa l'e-mail e la password che l'amministratore ha impostato per te.",
    email: 'E-mail',
    password: 'Password',
    submit: 'Accedi',
    busy: 'Accesso in corso…',
    wrong: "L'e-mail e la password non corrispondono. Controlla entrambe e riprova.",
    throttled: 'Troppi tentativi. Riprova tra {minutes} minuti.',
    ended: 'La sessione è terminata. Accedi di nuovo per continuare.',
    noPassword:
      'Nessuna password? Un operatore la imposta con: npm run cli -- users set-password --email tu@example.com',
  },
  setup: {
    title: 'Benvenuto in Parley',
    lead: 'Scegli la password con cui tu, il proprietario, accederai. Questo link funziona una sola volta.',
    password: 'Nuova password',
    repeat: 'La stessa password di nuovo',
    hint: 'Almeno 10 caratteri.',
    submit: 'Salva e accedi',
    busy: 'Salvataggio…',
    mismatch: 'Le due password sono diverse.',
    invalid: 'Questo link di configurazione non funziona più: è stato usato o è scaduto. Accedi con la tua password.',
    toSignIn: "Vai all'accesso",
  },
  firstRun:
    'Primo avvio: nessuno ha ancora una password. Apri il link di configurazione che il server ha mostrato all’avvio (npm start) per sceglierne una.',
  header: {
    chatbot: 'Chatbot',
    noChatbots: 'Ancora nessun chatbot',
    account: 'Account',
    signedInAs: 'Accesso come {email}',
    role: {
      owner: 'Proprietario',
      admin: 'Amministratore',
      member: 'Membro',
    },
    language: 'Lingua',
    name: 'Il tuo nome',
    nameHint: 'I visitatori lo vedono nelle tue risposte. Vuoto: «Team di assistenza».',
    saveName: 'Salva nome',
    nameSaved: 'Salvato.',
    signOut: 'Esci',
    signOutEverywhere: 'Esci ovunque',
  },
  nav: {
    label: 'Console',
    chatbotPages: 'Questo chatbot',
    accountPages: 'Account',
  },
  loading: 'Caricamento…',
  notFound: 'Questa pagina non esiste.',
  chatbotNotFound: 'Questo chatbot non esiste o non hai accesso.',
  failed: 'Qualcosa è andato storto: {message}',
  retry: 'Riprova',
  backToChatbots: 'Vai ai tuoi chatbot',
} satisfies Partial2<Strings>;
