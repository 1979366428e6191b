import type { PageManifest } from '../../registry.js';

const page: PageManifest = {
  id: 'knowledge',
  order: 20,
  label: {
    en: 'Knowledge',
    ar: 'المعرفة',
    da: 'Viden',
    de: 'Wissen',
    es: 'Conocimiento',
    fr: 'Connaissances',
    he: 'ידע',
    it: 'Conoscenza',
    ja: 'ナレッジ',
    nl: 'Kennis',
    pl: 'Wiedza',
    pt: 'Conhecimento',
    sv: 'Kunskap',
  },
  scope: 'knowledge:read',
  chatbot: true,
  load: () => import('./index.js'),
};

export default page;
