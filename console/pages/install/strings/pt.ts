import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Instalar',
  intro: 'Coloque o chatbot no seu site e na sua app, e diga-lhe quem são os seus utilizadores com sessão iniciada.',
  snippetHeading: 'Adicionar ao seu site',
  snippetText: 'Cole isto uma vez em cada página onde a bolha do chat deve aparecer, mesmo antes de </body>.',
  html: 'HTML simples',
  variant: 'Código para',
  copy: 'Copiar',
  copied: 'Copiado.',
  checkHeading: 'Verificar o meu site',
  checkText:
    'Carregamos a página a partir do servidor e procuramos o código. Um código que o JavaScript adiciona depois do carregamento (React, Vue) não é visto aqui: abra a página e procure a bolha.',
  pageUrl: 'Endereço da página',
  check: 'Verificar o meu site',
  checking: 'A verificar…',
  found: 'O chatbot está instalado em {url}.',
  notFound: 'Não há código deste chatbot em {url}. Cole o código acima nessa página e verifique de novo.',
  otherBot: '{url} tem o código de outro chatbot. Substitua-o pelo código acima.',
  unreadable: 'Não foi possível ler {url}: {reason}',
  failed: 'A verificação não funcionou: {message}',
  mobileHeading: 'Apps móveis',
  mobileText: 'Abra este endereço numa webview: é o chat numa página própria.',
  identityHeading: 'Verificação de identidade',
  identityText:
    'Os utilizadores com sessão iniciada são reconhecidos em qualquer dispositivo sem código por e-mail: o seu servidor assina o e-mail deles com o segredo de identidade do chatbot (HMAC-SHA256, hex) e a página passa ambos ao widget.',
  identifyText: 'Depois, nas páginas em que o utilizador tem sessão iniciada:',
  identifyLabel: 'chamada identify',
} satisfies Partial2<Strings>;
