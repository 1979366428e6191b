import type { PageManifest } from '../../registry.js';

export default {
  id: 'webhooks',
  order: 80,
  label: {
    en: 'Webhooks',
    ar: 'خطافات الويب',
    da: 'Webhooks',
    de: 'Webhooks',
    es: 'Webhooks',
    fr: 'Webhooks',
    he: 'Webhooks',
    it: 'Webhook',
    ja: 'Webhook',
    nl: 'Webhooks',
    pl: 'Webhooki',
    pt: 'Webhooks',
    sv: 'Webhooks',
  },
  scope: 'settings:read',
  chatbot: true,
  load: () => import('./index.js'),
} satisfies PageManifest;
