import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Prospects',
  lead: 'Les coordonnées laissées par les visiteurs dans les conversations, les plus récentes d’abord.',
  export: 'Exporter en CSV',
  loading: 'Chargement des prospects…',
  empty:
    'Aucun prospect pour l’instant. Activez la collecte de contacts dans Apparence → Collecte de contacts pour que les visiteurs puissent laisser leurs coordonnées.',
  count: '{count} prospects',
  captured: 'Reçu le',
  name: 'Nom',
  email: 'E-mail',
  phone: 'Téléphone',
  failed: 'Impossible de charger les prospects : {message}',
} satisfies Partial2<Strings>;
