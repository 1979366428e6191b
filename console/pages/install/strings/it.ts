import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Installa',
  intro: 'Metti il chatbot sul tuo sito e nella tua app, e fagli sapere chi sono i tuoi utenti connessi.',
  snippetHeading: 'Aggiungilo al tuo sito',
  snippetText:
    'Incolla questo una volta in ogni pagina in cui deve comparire la bolla della chat, subito prima di </body>.',
  html: 'HTML semplice',
  variant: 'Codice per',
  copy: 'Copia',
  copied: 'Copiato.',
  checkHeading: 'Controlla il mio sito',
  checkText:
    'Carichiamo la pagina dal server e cerchiamo il codice. Un codice aggiunto da JavaScript dopo il caricamento (React, Vue) qui non si vede: apri la pagina e cerca la bolla.',
  pageUrl: 'Indirizzo della pagina',
  check: 'Controlla il mio sito',
  checking: 'Controllo in corso…',
  found: 'Il chatbot è installato su {url}.',
  notFound:
    'Nessun codice di questo chatbot su {url}. Incolla il codice qui sopra in quella pagina e controlla di nuovo.',
  otherBot: '{url} contiene il codice di un altro chatbot. Sostituiscilo con il codice qui sopra.',
  unreadable: 'Impossibile leggere {url}: {reason}',
  failed: 'Il controllo non ha funzionato: {message}',
  mobileHeading: 'App mobili',
  mobileText: 'Apri questo indirizzo in una webview: è la chat su una pagina tutta sua.',
  identityHeading: 'Verifica dell’identità',
  identityText:
    'Gli utenti connessi vengono riconosciuti su ogni dispositivo senza codice via e-mail: il tuo server firma la loro e-mail con il segreto d’identità del chatbot (HMAC-SHA256, hex) e la pagina passa entrambi al widget.',
  identifyText: 'Poi, nelle pagine in cui l’utente è connesso:',
  identifyLabel: 'chiamata identify',
} satisfies Partial2<Strings>;
