import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Team',
  intro:
    'Die Menschen, die an diesem Chatbot arbeiten. Admins dürfen alles außer der Abrechnung, bei jedem Chatbot; Mitglieder bearbeiten Unterhaltungen, Leads und Wissen der Chatbots, zu denen sie hinzugefügt wurden.',
  loading: 'Team wird geladen…',
  empty: 'Zu diesem Chatbot wurde noch niemand hinzugefügt.',
  inviteHeading: 'Jemanden hinzufügen',
  email: 'E-Mail',
  name: 'Anzeigename (optional)',
  role: 'Rolle',
  roleHelp: 'Die Rolle gilt im ganzen Konto. Wer schon im Konto ist, behält seine Rolle.',
  alsoOn: 'Auch hinzufügen zu',
  invite: 'Zum Team hinzufügen',
  invited: '{email} wurde hinzugefügt.',
  owner: 'Inhaber',
  admin: 'Admin',
  member: 'Mitglied',
  you: 'Sie',
  roleOf: 'Rolle von {name}',
  roleChanged: '{name} ist jetzt {role}.',
  alsoOnList: 'Auch bei: {names}',
  onlyHere: 'Nur bei diesem Chatbot',
  since: 'Hinzugefügt am {date}',
  remove: 'Entfernen',
  removeText: '{name} von diesem Chatbot entfernen? Die Person bleibt im Konto.',
  removeButton: 'Vom Chatbot entfernen',
  cancel: 'Abbrechen',
  removed: '{name} wurde von diesem Chatbot entfernt.',
  failed: 'Das hat nicht geklappt: {message}',
  readOnly: 'Ihre Rolle darf das Team sehen, aber nicht ändern.',
} satisfies Partial2<Strings>;
