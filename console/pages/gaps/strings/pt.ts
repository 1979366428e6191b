import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

const pt: Partial2<Strings> = {
  title: 'Lacunas de conhecimento',
  lead: 'Perguntas de visitantes que o seu chatbot não soube responder. Responda aqui: a sua resposta é enviada ao visitante que perguntou e dada a todos os que perguntarem o mesmo depois.',
  show: 'Mostrar',
  open: 'Sem resposta',
  answered: 'Respondidas',
  none: 'Não há perguntas sem resposta. Bom trabalho.',
  noneAnswered: 'Ainda não foi respondida nenhuma pergunta aqui.',
  asked: 'Perguntada {date}',
  answeredOn: 'Respondida {date}',
  answer: 'A sua resposta',
  save: 'Enviar resposta',
  saving: 'A enviar…',
  update: 'Alterar resposta',
  saved: 'Guardada como resposta personalizada. O visitante que perguntou recebeu a sua resposta.',
  current: 'Resposta atual',
  delete: 'Descartar',
  confirmDelete: 'Descartar esta pergunta sem responder?',
  keep: 'Manter',
  noWrite: 'A sua função pode ver estas perguntas, mas não respondê-las.',
  more: 'Mostrar mais',
};

export default pt;
