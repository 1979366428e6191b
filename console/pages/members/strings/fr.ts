import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Équipe',
  intro:
    'Les personnes qui travaillent sur ce chatbot. Les admins peuvent tout modifier sauf la facturation, sur chaque chatbot ; les membres traitent conversations, prospects et connaissances des chatbots auxquels ils sont ajoutés.',
  loading: 'Chargement de l’équipe…',
  empty: 'Personne n’a encore été ajouté à ce chatbot.',
  inviteHeading: 'Ajouter quelqu’un',
  email: 'E-mail',
  name: 'Nom affiché (facultatif)',
  role: 'Rôle',
  roleHelp: 'Le rôle vaut pour tout le compte. Une personne déjà dans le compte garde son rôle.',
  alsoOn: 'L’ajouter aussi à',
  invite: 'Ajouter à l’équipe',
  invited: '{email} a été ajouté.',
  owner: 'Propriétaire',
  admin: 'Admin',
  member: 'Membre',
  you: 'vous',
  roleOf: 'Rôle de {name}',
  roleChanged: '{name} est maintenant {role}.',
  alsoOnList: 'Aussi sur : {names}',
  onlyHere: 'Seulement sur ce chatbot',
  since: 'Ajouté le {date}',
  remove: 'Retirer',
  removeText: 'Retirer {name} de ce chatbot ? La personne reste dans le compte.',
  removeButton: 'Retirer du chatbot',
  cancel: 'Annuler',
  removed: '{name} a été retiré de ce chatbot.',
  failed: 'Cela n’a pas fonctionné : {message}',
} satisfies Partial2<Strings>;
