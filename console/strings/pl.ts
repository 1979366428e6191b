import type { Partial2 } from '../i18n/index.js';
import type { Strings } from './en.js';

export default {
  skipToContent: 'Przejdź do treści',
  signIn: {
    title: 'Zaloguj się do Parley',
    lead: 'Użyj adresu e-mail i hasła ustawionych dla Ciebie przez administratora.',
    email: 'E-mail',
    password: 'Hasło',
    submit: 'Zaloguj się',
    busy: 'Logowanie…',
    wrong: 'Adres e-mail i hasło nie pasują do siebie. Sprawdź oba i spróbuj ponownie.',
    throttled: 'Zbyt wiele prób. Spróbuj ponownie za {minutes} min.',
    ended: 'Sesja wygasła. Zaloguj się ponownie, aby kontynuować.',
    noPassword:
      'Nie masz hasła? Operator ustawia je poleceniem: npm run cli -- users set-password --email ty@example.com',
  },
  setup: {
    title: 'Witamy w Parley',
    lead: 'Wybierz hasło, którym Ty, właściciel, będziesz się logować. Ten link działa jeden raz.',
    password: 'Nowe hasło',
    repeat: 'To samo hasło ponownie',
    hint: 'Co najmniej 10 znaków.',
    submit: 'Zapisz i zaloguj się',
    busy: 'Zapisywanie…',
    mismatch: 'Hasła się różnią.',
    invalid: 'Ten link konfiguracyjny już nie działa: został użyty lub wygasł. Zaloguj się swoim hasłem.',
    toSignIn: 'Przejdź do logowania',
  },
  firstRun:
    'Pierwsze uruchomienie: nikt nie ma jeszcze hasła. Otwórz link konfiguracyjny wypisany przez serwer przy starcie (npm start), aby wybrać swoje.',
  header: {
    chatbot: 'Czatbot',
    noChatbots: 'Brak czatbotów',
    account: 'Konto',
    signedInAs: 'Zalogowano jako {email}',
    role: {
      owner: 'Właściciel',
      admin: 'Administrator',
      member: 'Członek',
    },
    language: 'Język',
    name: 'Twoje imię',
    nameHint: 'Odwiedzający widzą je przy Twoich odpowiedziach. Puste: „Zespół wsparcia”.',
    saveName: 'Zapisz imię',
    nameSaved: 'Zapisano.',
    signOut: 'Wyloguj się',
    signOutEverywhere: 'Wyloguj się wszędzie',
  },
  nav: {
    label: 'Konsola',
    chatbotPages: 'Ten czatbot',
    accountPages: 'Konto',
  },
  loading: 'Ładowanie…',
  notFound: 'Ta strona nie istnieje.',
  chatbotNotFound: 'Ten czatbot nie istnieje lub nie masz do niego dostępu.',
  failed: 'Coś poszło nie tak: {message}',
  retry: 'Spróbuj ponownie',
  backToChatbots: 'Przejdź do swoich czatbotów',
} satisfies Partial2<Strings>;
