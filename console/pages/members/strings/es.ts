import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Equipo',
  intro:
    'Las personas que trabajan en este chatbot. Los administradores pueden cambiarlo todo salvo la facturación, en todos los chatbots; los miembros atienden conversaciones, contactos y conocimiento de los chatbots a los que se les añade.',
  loading: 'Cargando el equipo…',
  empty: 'Aún no se ha añadido a nadie a este chatbot.',
  inviteHeading: 'Añadir a alguien',
  email: 'Correo electrónico',
  name: 'Nombre visible (opcional)',
  role: 'Rol',
  roleHelp: 'El rol se aplica a toda la cuenta. Quien ya está en la cuenta conserva su rol.',
  alsoOn: 'Añadir también a',
  invite: 'Añadir al equipo',
  invited: 'Se ha añadido a {email}.',
  owner: 'Propietario',
  admin: 'Administrador',
  member: 'Miembro',
  you: 'tú',
  roleOf: 'Rol de {name}',
  roleChanged: '{name} ahora es {role}.',
  alsoOnList: 'También en: {names}',
  onlyHere: 'Solo en este chatbot',
  since: 'Añadido el {date}',
  remove: 'Quitar',
  removeText: '¿Quitar a {name} de este chatbot? Sigue en la cuenta.',
  removeButton: 'Quitar del chatbot',
  cancel: 'Cancelar',
  removed: 'Se ha quitado a {name} de este chatbot.',
  failed: 'No ha funcionado: {message}',
} satisfies Partial2<Strings>;
