import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

const fr: Partial2<Strings> = {
  title: 'Lacunes',
  lead: 'Les questions de visiteurs auxquelles votre chatbot n’a pas su répondre. Répondez ici : votre réponse est envoyée au visiteur qui l’a posée, et donnée à tous ceux qui la poseront ensuite.',
  show: 'Afficher',
  open: 'Sans réponse',
  answered: 'Répondues',
  none: 'Aucune question sans réponse. Bravo.',
  noneAnswered: 'Aucune question n’a encore reçu de réponse ici.',
  asked: 'Posée le {date}',
  answeredOn: 'Répondue le {date}',
  answer: 'Votre réponse',
  save: 'Envoyer la réponse',
  saving: 'Envoi…',
  update: 'Modifier la réponse',
  saved: 'Enregistrée comme réponse personnalisée. Le visiteur qui a posé la question a reçu votre réponse.',
  current: 'Réponse actuelle',
  delete: 'Écarter',
  confirmDelete: 'Écarter cette question sans y répondre ?',
  keep: 'Conserver',
  noWrite: 'Votre rôle permet de voir ces questions, pas d’y répondre.',
  more: 'Afficher plus',
};

export default fr;
