import type { Partial2 } from '../i18n/index.js';
import type { Strings } from './en.js';

export default {
  skipToContent: 'Aller au contenu',
  signIn: {
    title: 'Se connecter à Parley',
    lead: "Utilisez l'adresse e-mail et le mot de passe que votre administrateur a définis pour vous.",
    email: 'E-mail',
    password: 'Mot de passe',
    submit: 'Se connecter',
    busy: 'Connexion…',
    wrong: "L'e-mail et le mot de passe ne correspondent pas. Vérifiez les deux et réessayez.",
    throttled: 'Trop de tentatives. Réessayez dans {minutes} minutes.',
    ended: 'Votre session a pris fin. Reconnectez-vous pour continuer.',
    noPassword:
      'Pas encore de mot de passe ? Un opérateur le définit avec : npm run cli -- users set-password --email vous@example.com',
  },
  setup: {
    title: 'Bienvenue dans Parley',
    lead: 'Choisissez le mot de passe avec lequel vous, le propriétaire, vous connecterez. Ce lien ne fonctionne qu’une fois.',
    password: 'Nouveau mot de passe',
    repeat: 'Le même mot de passe à nouveau',
    hint: 'Au moins 10 caractères.',
    submit: 'Enregistrer et se connecter',
    busy: 'Enregistrement…',
    mismatch: 'Les deux mots de passe diffèrent.',
    invalid:
      'Ce lien de configuration ne fonctionne plus : il a été utilisé ou il a expiré. Connectez-vous plutôt avec votre mot de passe.',
    toSignIn: 'Aller à la connexion',
  },
  firstRun:
    'Premier démarrage : personne n’a encore de mot de passe. Ouvrez le lien de configuration affiché par le serveur au démarrage (npm start) pour choisir le vôtre.',
  header: {
    chatbot: 'Chatbot',
    noChatbots: 'Aucun chatbot pour le moment',
    account: 'Compte',
    signedInAs: 'Connecté en tant que {email}',
    role: {
      owner: 'Propriétaire',
      admin: 'Admin',
      member: 'Membre',
    },
    language: 'Langue',
    name: 'Votre nom',
    nameHint: 'Les visiteurs le voient sur vos réponses. Vide : « Équipe support ».',
    saveName: 'Enregistrer le nom',
    nameSaved: 'Enregistré.',
    signOut: 'Se déconnecter',
    signOutEverywhere: 'Se déconnecter partout',
  },
  nav: {
    label: 'Console',
    chatbotPages: 'Ce chatbot',
    accountPages: 'Compte',
  },
  loading: 'Chargement…',
  notFound: "Cette page n'existe pas.",
  chatbotNotFound: "Ce chatbot n'existe pas, ou vous n'y avez pas accès.",
  failed: "Une erreur s'est produite : {message}",
  retry: 'Réessayer',
  backToChatbots: 'Voir vos chatbots',
} satisfies Partial2<Strings>;
