import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Contactos',
  lead: 'Los datos de contacto que los visitantes dejaron en las conversaciones, primero los más recientes.',
  export: 'Exportar CSV',
  loading: 'Cargando contactos…',
  empty:
    'Aún no hay contactos. Activa la captura de contactos en Apariencia → Captura de contactos y los visitantes podrán dejar sus datos.',
  count: '{count} contactos',
  captured: 'Recibido',
  name: 'Nombre',
  email: 'Correo electrónico',
  phone: 'Teléfono',
  failed: 'No se pudieron cargar los contactos: {message}',
} satisfies Partial2<Strings>;
