import type { PageManifest } from '../../registry.js';

export default {
  id: 'install',
  order: 90,
  label: {
    en: 'Install',
    ar: 'التثبيت',
    da: 'Installér',
    de: 'Einbinden',
    es: 'Instalar',
    fr: 'Installer',
    he: 'התקנה',
    it: 'Installa',
    ja: '設置',
    nl: 'Installeren',
    pl: 'Instalacja',
    pt: 'Instalar',
    sv: 'Installera',
  },
  scope: 'settings:read',
  chatbot: true,
  load: () => import('./index.js'),
} satisfies PageManifest;
