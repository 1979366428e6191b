import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Instalar',
  intro: 'Pon el chatbot en tu web y en tu app, y dile quiénes son tus usuarios con sesión iniciada.',
  snippetHeading: 'Añádelo a tu web',
  snippetText: 'Pega esto una vez en cada página donde deba aparecer la burbuja del chat, justo antes de </body>.',
  html: 'HTML simple',
  variant: 'Código para',
  copy: 'Copiar',
  copied: 'Copiado.',
  checkHeading: 'Comprobar mi web',
  checkText:
    'Cargamos la página desde el servidor y buscamos el código. Un código que JavaScript añade después de cargar (React, Vue) no se ve aquí: abre la página y busca la burbuja.',
  pageUrl: 'Dirección de la página',
  check: 'Comprobar mi web',
  checking: 'Comprobando…',
  found: 'El chatbot está instalado en {url}.',
  notFound: 'No hay código de este chatbot en {url}. Pega el código de arriba en esa página y vuelve a comprobar.',
  otherBot: '{url} tiene el código de otro chatbot. Sustitúyelo por el código de arriba.',
  unreadable: 'No se pudo leer {url}: {reason}',
  failed: 'La comprobación no ha funcionado: {message}',
  mobileHeading: 'Apps móviles',
  mobileText: 'Abre esta dirección en un webview: es el chat en una página propia.',
  identityHeading: 'Verificación de identidad',
  identityText:
    'Tus usuarios con sesión iniciada se reconocen en cualquier dispositivo sin código por correo: tu servidor firma su correo con el secreto de identidad del chatbot (HMAC-SHA256, hex) y la página pasa ambos al widget.',
  identifyText: 'Después, en las páginas donde el usuario ha iniciado sesión:',
  identifyLabel: 'llamada identify',
} satisfies Partial2<Strings>;
