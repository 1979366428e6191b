import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Instalacja',
  intro: 'Umieść czatbota na swojej stronie i w aplikacji oraz przekaż mu, kim są zalogowani użytkownicy.',
  snippetHeading: 'Dodaj go do strony',
  snippetText: 'Wklej to raz na każdej stronie, na której ma się pojawić dymek czatu, tuż przed </body>.',
  html: 'Zwykły HTML',
  variant: 'Kod dla',
  copy: 'Kopiuj',
  copied: 'Skopiowano.',
  checkHeading: 'Sprawdź moją stronę',
  checkText:
    'Wczytujemy stronę z serwera i szukamy kodu. Kod dodany przez JavaScript po wczytaniu (React, Vue) nie jest tu widoczny: otwórz stronę i poszukaj dymka.',
  pageUrl: 'Adres strony',
  check: 'Sprawdź moją stronę',
  checking: 'Sprawdzanie…',
  found: 'Czatbot jest zainstalowany na {url}.',
  notFound: 'Brak kodu tego czatbota na {url}. Wklej powyższy kod na tę stronę i sprawdź ponownie.',
  otherBot: '{url} zawiera kod innego czatbota. Zastąp go powyższym kodem.',
  unreadable: 'Nie udało się odczytać {url}: {reason}',
  failed: 'Sprawdzenie nie powiodło się: {message}',
  mobileHeading: 'Aplikacje mobilne',
  mobileText: 'Otwórz ten adres w webview: to czat na osobnej stronie.',
  identityHeading: 'Weryfikacja tożsamości',
  identityText:
    'Zalogowani użytkownicy są rozpoznawani na każdym urządzeniu bez kodu e-mail: Twój serwer podpisuje ich e-mail sekretem tożsamości czatbota (HMAC-SHA256, hex), a strona przekazuje oba do widżetu.',
  identifyText: 'Następnie na stronach, na których użytkownik jest zalogowany:',
  identifyLabel: 'wywołanie identify',
} satisfies Partial2<Strings>;
