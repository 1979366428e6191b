import type { Partial2 } from '../i18n/index.js';
import type { Strings } from './en.js';

export default {
  skipToContent: 'Ir para o conteúdo',
  signIn: {
    title: 'Entrar no Parley',
    lead: 'Use o e-mail e a senha que o seu administrador definiu para você.',
    email: 'E-mail',
    password: 'Senha',
    submit: 'Entrar',
    busy: 'Entrando…',
    wrong: 'O e-mail e a senha não correspondem. Verifique os dois e tente novamente.',
    throttled: 'Tentativas demais. Tente novamente em {minutes} minutos.',
    ended: 'Sua sessão terminou. Entre novamente para continuar.',
    noPassword: 'Ainda sem senha? Um operador define com: npm run cli -- users set-password --email voce@example.com',
  },
  setup: {
    title: 'Boas-vindas ao Parley',
    lead: 'Escolha a senha com que você, o proprietário, vai entrar. Este link funciona uma vez.',
    password: 'Nova senha',
    repeat: 'A mesma senha de novo',
    hint: 'Pelo menos 10 caracteres.',
    submit: 'Salvar e entrar',
    busy: 'Salvando…',
    mismatch: 'As duas senhas são diferentes.',
    invalid: 'Este link de configuração não funciona mais: foi usado ou expirou. Entre com sua senha.',
    toSignIn: 'Ir para o login',
  },
  firstRun:
    'Primeira execução: ninguém tem senha ainda. Abra o link de configuração que o servidor mostrou ao iniciar (npm start) para escolher a sua.',
  header: {
    chatbot: 'Chatbot',
    noChatbots: 'Nenhum chatbot ainda',
    account: 'Conta',
    signedInAs: 'Conectado como {email}',
    role: {
      owner: 'Proprietário',
      admin: 'Administrador',
      member: 'Membro',
    },
    language: 'Idioma',
    signOut: 'Sair',
    signOutEverywhere: 'Sair de todos os dispositivos',
  },
  nav: {
    label: 'Console',
    chatbotPages: 'Este chatbot',
    accountPages: 'Conta',
  },
  loading: 'Carregando…',
  notFound: 'Esta página não existe.',
  chatbotNotFound: 'Este chatbot não existe ou você não tem acesso a ele.',
  failed: 'Algo deu errado: {message}',
  retry: 'Tentar novamente',
  backToChatbots: 'Ir para seus chatbots',
} satisfies Partial2<Strings>;
