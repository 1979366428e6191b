import type { PageManifest } from '../../registry.js';

const page: PageManifest = {
  id: 'inbox',
  order: 10,
  label: {
    en: 'Inbox',
    ar: 'صندوق الوارد',
    da: 'Indbakke',
    de: 'Posteingang',
    es: 'Bandeja de entrada',
    fr: 'Boîte de réception',
    he: 'תיבת דואר',
    it: 'Posta in arrivo',
    ja: '受信箱',
    nl: 'Inbox',
    pl: 'Skrzynka',
    pt: 'Caixa de entrada',
    sv: 'Inkorg',
  },
  scope: 'conversations:read',
  chatbot: true,
  load: () => import('./index.js'),
};

export default page;
