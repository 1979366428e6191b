import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Chatbots',
  lead: 'Cada chatbot tiene su propio conocimiento, aspecto y conversaciones. Elige uno para trabajar en él.',
  empty: 'Aún no hay chatbots. Crea el primero: ponle un nombre y luego añade lo que debe saber.',
  createHeading: 'Nuevo chatbot',
  name: 'Nombre',
  namePlaceholder: 'p. ej. Soporte de Acme',
  create: 'Crear chatbot',
  creating: 'Creando…',
  created: 'Se creó {name}. Siguiente paso: en Conocimiento, añade las páginas de las que debe responder.',
  open: 'Abrir',
  selected: 'Seleccionado',
  createdOn: 'Creado el {date}',
  rename: 'Renombrar',
  renameLabel: 'Nuevo nombre para {name}',
  save: 'Guardar',
  cancel: 'Cancelar',
  renamed: 'Renombrado a {name}.',
  delete: 'Eliminar',
  deleteHeading: '¿Eliminar {name}?',
  deleteText:
    'Esto elimina el chatbot con todo su conocimiento, conversaciones, leads y ajustes. No se puede deshacer.',
  deleteConfirm: 'Escribe el nombre para confirmar',
  deleteButton: 'Eliminar definitivamente',
  deleted: 'Se eliminó {name}.',
  failed: 'No funcionó: {message}',
  limit: 'Tu plan no permite más chatbots. Elimina uno o pide a un operador que aumente el límite.',
} satisfies Partial2<Strings>;
