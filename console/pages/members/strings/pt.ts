import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Equipa',
  intro:
    'As pessoas que trabalham neste chatbot. Os administradores podem alterar tudo exceto a faturação, em todos os chatbots; os membros tratam conversas, contactos e conhecimento dos chatbots a que foram adicionados.',
  loading: 'A carregar a equipa…',
  empty: 'Ainda ninguém foi adicionado a este chatbot.',
  inviteHeading: 'Adicionar alguém',
  email: 'E-mail',
  name: 'Nome apresentado (opcional)',
  role: 'Função',
  roleHelp: 'A função aplica-se a toda a conta. Quem já está na conta mantém a sua função.',
  alsoOn: 'Adicionar também a',
  invite: 'Adicionar à equipa',
  invited: '{email} foi adicionado.',
  owner: 'Proprietário',
  admin: 'Administrador',
  member: 'Membro',
  you: 'você',
  roleOf: 'Função de {name}',
  roleChanged: '{name} é agora {role}.',
  alsoOnList: 'Também em: {names}',
  onlyHere: 'Só neste chatbot',
  since: 'Adicionado a {date}',
  remove: 'Remover',
  removeText: 'Remover {name} deste chatbot? Continua na conta.',
  removeButton: 'Remover do chatbot',
  cancel: 'Cancelar',
  removed: '{name} foi removido deste chatbot.',
  failed: 'Não funcionou: {message}',
} satisfies Partial2<Strings>;
