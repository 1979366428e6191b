import type { PageManifest } from '../../registry.js';

export default {
  id: 'members',
  order: 60,
  label: {
    en: 'Team',
    ar: 'الفريق',
    da: 'Team',
    de: 'Team',
    es: 'Equipo',
    fr: 'Équipe',
    he: 'צוות',
    it: 'Team',
    ja: 'チーム',
    nl: 'Team',
    pl: 'Zespół',
    pt: 'Equipa',
    sv: 'Team',
  },
  scope: 'members:read',
  chatbot: true,
  load: () => import('./index.js'),
} satisfies PageManifest;
