import type { PageManifest } from '../../registry.js';

export default {
  id: 'leads',
  order: 40,
  label: {
    en: 'Leads',
    ar: 'العملاء المحتملون',
    da: 'Leads',
    de: 'Leads',
    es: 'Contactos',
    fr: 'Prospects',
    he: 'לידים',
    it: 'Contatti',
    ja: 'リード',
    nl: 'Leads',
    pl: 'Kontakty',
    pt: 'Contactos',
    sv: 'Leads',
  },
  scope: 'leads:read',
  chatbot: true,
  load: () => import('./index.js'),
} satisfies PageManifest;
