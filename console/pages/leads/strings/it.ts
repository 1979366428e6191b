import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Contatti',
  lead: 'I recapiti lasciati dai visitatori nelle conversazioni, dai più recenti.',
  export: 'Esporta CSV',
  loading: 'Caricamento dei contatti…',
  empty:
    'Ancora nessun contatto. Attiva la raccolta contatti in Aspetto → Raccolta contatti e i visitatori potranno lasciare i loro dati.',
  count: '{count} contatti',
  captured: 'Ricevuto',
  name: 'Nome',
  email: 'E-mail',
  phone: 'Telefono',
  failed: 'Impossibile caricare i contatti: {message}',
} satisfies Partial2<Strings>;
