import type { PageManifest } from '../../registry.js';

const page: PageManifest = {
  id: 'appearance',
  order: 30,
  label: {
    en: 'Appearance & behaviour',
    ar: 'المظهر والسلوك',
    da: 'Udseende og adfærd',
    de: 'Aussehen & Verhalten',
    es: 'Apariencia y comportamiento',
    fr: 'Apparence et comportement',
    he: 'מראה והתנהגות',
    it: 'Aspetto e comportamento',
    ja: '外観と動作',
    nl: 'Uiterlijk en gedrag',
    pl: 'Wygląd i działanie',
    pt: 'Aparência e comportamento',
    sv: 'Utseende och beteende',
  },
  scope: 'settings:read',
  chatbot: true,
  load: () => import('./index.js'),
};

export default page;
