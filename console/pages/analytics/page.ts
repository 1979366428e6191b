import type { PageManifest } from '../../registry.js';

export default {
  id: 'analytics',
  order: 50,
  label: {
    en: 'Analytics',
    ar: 'الإحصاءات',
    da: 'Statistik',
    de: 'Statistiken',
    es: 'Estadísticas',
    fr: 'Statistiques',
    he: 'נתונים',
    it: 'Statistiche',
    ja: '分析',
    nl: 'Statistieken',
    pl: 'Statystyki',
    pt: 'Estatísticas',
    sv: 'Statistik',
  },
  scope: 'chatbots:read',
  chatbot: true,
  load: () => import('./index.js'),
} satisfies PageManifest;
