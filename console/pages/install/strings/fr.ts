import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Installer',
  intro: 'Placez le chatbot sur votre site et dans votre appli, et indiquez-lui qui sont vos utilisateurs connectés.',
  snippetHeading: 'L’ajouter à votre site',
  snippetText: 'Collez ceci une fois sur chaque page où la bulle de chat doit apparaître, juste avant </body>.',
  html: 'HTML simple',
  variant: 'Code pour',
  copy: 'Copier',
  copied: 'Copié.',
  checkHeading: 'Vérifier mon site',
  checkText:
    'Nous chargeons la page depuis le serveur et y cherchons le code. Un code ajouté par JavaScript après le chargement (React, Vue) n’est pas visible ici : ouvrez la page et cherchez la bulle.',
  pageUrl: 'Adresse de la page',
  check: 'Vérifier mon site',
  checking: 'Vérification…',
  found: 'Le chatbot est installé sur {url}.',
  notFound: 'Aucun code de ce chatbot sur {url}. Collez le code ci-dessus dans cette page puis vérifiez de nouveau.',
  otherBot: '{url} contient le code d’un autre chatbot. Remplacez-le par le code ci-dessus.',
  unreadable: 'Impossible de lire {url} : {reason}',
  failed: 'La vérification n’a pas fonctionné : {message}',
  mobileHeading: 'Applis mobiles',
  mobileText: 'Ouvrez cette adresse dans une webview : c’est le chat sur une page à lui.',
  identityHeading: 'Vérification d’identité',
  identityText:
    'Vos utilisateurs connectés sont reconnus sur chaque appareil sans code par e-mail : votre serveur signe leur e-mail avec le secret d’identité du chatbot (HMAC-SHA256, hex), et la page transmet les deux au widget.',
  identifyText: 'Puis, sur les pages où l’utilisateur est connecté :',
  identifyLabel: 'appel identify',
} satisfies Partial2<Strings>;
