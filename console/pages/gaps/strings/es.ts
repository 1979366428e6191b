import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

const es: Partial2<Strings> = {
  title: 'Lagunas de conocimiento',
  lead: 'Preguntas de visitantes que su chatbot no supo responder. Respóndalas aquí: su respuesta se envía al visitante que preguntó y se da a todos los que pregunten lo mismo después.',
  show: 'Mostrar',
  open: 'Sin responder',
  answered: 'Respondidas',
  none: 'No hay preguntas sin responder. Buen trabajo.',
  noneAnswered: 'Todavía no se ha respondido ninguna pregunta aquí.',
  asked: 'Preguntada {date}',
  answeredOn: 'Respondida {date}',
  answer: 'Su respuesta',
  save: 'Enviar respuesta',
  saving: 'Enviando…',
  update: 'Cambiar respuesta',
  saved: 'Guardada como respuesta personalizada. El visitante que preguntó ha recibido su respuesta.',
  current: 'Respuesta actual',
  delete: 'Descartar',
  confirmDelete: '¿Descartar esta pregunta sin responderla?',
  keep: 'Conservar',
  noWrite: 'Su rol puede ver estas preguntas, pero no responderlas.',
  more: 'Mostrar más',
};

export default es;
