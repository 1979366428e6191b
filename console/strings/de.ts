import type { Partial2 } from '../i18n/index.js';
import type { Strings } from './en.js';

export default {
  skipToContent: 'Zum Inhalt springen',
  signIn: {
    title: 'Bei Parley anmelden',
    lead: 'Verwenden Sie die E-Mail-Adresse und das Passwort, die Ihr Administrator für Sie festgelegt hat.',
    email: 'E-Mail',
    password: 'Passwort',
    submit: 'Anmelden',
    busy: 'Anmeldung läuft…',
    wrong: 'E-Mail-Adresse und Passwort passen nicht zusammen. Prüfen Sie beides und versuchen Sie es erneut.',
    throttled: 'Zu viele Versuche. Versuchen Sie es in {minutes} Minuten erneut.',
    ended: 'Ihre Sitzung ist abgelaufen. Melden Sie sich erneut an, um fortzufahren.',
    noPassword:
      'Noch kein Passwort? Ein Betreiber legt es fest mit: npm run cli -- users set-password --email sie@example.com',
  },
  setup: {
    title: 'Willkommen bei Parley',
    lead: 'Wählen Sie das Passwort, mit dem Sie sich als Inhaber anmelden. Dieser Link funktioniert einmal.',
    password: 'Neues Passwort',
    repeat: 'Dasselbe Passwort noch einmal',
    hint: 'Mindestens 10 Zeichen.',
    submit: 'Speichern und anmelden',
    busy: 'Wird gespeichert…',
    mismatch: 'Die beiden Passwörter sind verschieden.',
    invalid:
      'Dieser Einrichtungslink funktioniert nicht mehr: Er wurde benutzt oder ist abgelaufen. Melden Sie sich stattdessen mit Ihrem Passwort an.',
    toSignIn: 'Zur Anmeldung',
  },
  firstRun:
    'Erster Start: Noch niemand hat ein Passwort. Öffnen Sie den Einrichtungslink, den der Server beim Start (npm start) ausgegeben hat, um Ihres zu wählen.',
  header: {
    chatbot: 'Chatbot',
    noChatbots: 'Noch keine Chatbots',
    account: 'Konto',
    signedInAs: 'Angemeldet als {email}',
    role: {
      owner: 'Inhaber',
      admin: 'Admin',
      member: 'Mitglied',
    },
    language: 'Sprache',
    name: 'Ihr Name',
    nameHint: 'Besucher sehen ihn bei Ihren Antworten. Leer: „Support-Team“.',
    saveName: 'Namen speichern',
    nameSaved: 'Gespeichert.',
    signOut: 'Abmelden',
    signOutEverywhere: 'Überall abmelden',
  },
  nav: {
    label: 'Konsole',
    chatbotPages: 'Dieser Chatbot',
    accountPages: 'Konto',
  },
  loading: 'Wird geladen…',
  notFound: 'Diese Seite gibt es nicht.',
  chatbotNotFound: 'Diesen Chatbot gibt es nicht, oder Sie haben keinen Zugriff darauf.',
  failed: 'Etwas ist schiefgelaufen: {message}',
  retry: 'Erneut versuchen',
  backToChatbots: 'Zu Ihren Chatbots',
} satisfies Partial2<Strings>;
