import type { PageManifest } from '../../registry.js';

export default {
  id: 'tokens',
  order: 70,
  label: {
    en: 'API tokens',
    ar: 'رموز API',
    da: 'API-nøgler',
    de: 'API-Tokens',
    es: 'Tokens de API',
    fr: 'Jetons d’API',
    he: 'אסימוני API',
    it: 'Token API',
    ja: 'API トークン',
    nl: 'API-tokens',
    pl: 'Tokeny API',
    pt: 'Tokens de API',
    sv: 'API-token',
  },
  scope: 'tokens:read',
  chatbot: false,
  load: () => import('./index.js'),
} satisfies PageManifest;
