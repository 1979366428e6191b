import type { PageManifest } from '../../registry.js';

export default {
  id: 'chatbots',
  order: 900,
  label: {
    en: 'Chatbots',
    ar: 'روبوتات الدردشة',
    da: 'Chatbots',
    de: 'Chatbots',
    es: 'Chatbots',
    fr: 'Chatbots',
    he: "צ'אטבוטים",
    it: 'Chatbot',
    ja: 'チャットボット',
    nl: 'Chatbots',
    pl: 'Czatboty',
    pt: 'Chatbots',
    sv: 'Chattbotar',
  },
  scope: 'chatbots:read',
  chatbot: false,
  load: () => import('./index.js'),
} satisfies PageManifest;
