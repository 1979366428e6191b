import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Contactos',
  lead: 'Os dados de contacto que os visitantes deixaram nas conversas, os mais recentes primeiro.',
  export: 'Exportar CSV',
  loading: 'A carregar contactos…',
  empty:
    'Ainda não há contactos. Ative a recolha de contactos em Aparência → Recolha de contactos e os visitantes poderão deixar os seus dados.',
  count: '{count} contactos',
  captured: 'Recebido',
  name: 'Nome',
  email: 'E-mail',
  phone: 'Telefone',
  failed: 'Não foi possível carregar os contactos: {message}',
} satisfies Partial2<Strings>;
