import type { PageManifest } from '../../registry.js';

const page: PageManifest = {
  id: 'gaps',
  order: 25,
  label: {
    en: 'Knowledge gaps',
    ar: 'فجوات المعرفة',
    da: 'Videnshuller',
    de: 'Wissenslücken',
    es: 'Lagunas de conocimiento',
    fr: 'Lacunes',
    he: 'פערי ידע',
    it: 'Lacune di conoscenza',
    ja: '未回答の質問',
    nl: 'Kennishiaten',
    pl: 'Luki w wiedzy',
    pt: 'Lacunas de conhecimento',
    sv: 'Kunskapsluckor',
  },
  scope: 'conversations:read',
  chatbot: true,
  load: () => import('./index.js'),
};

export default page;
