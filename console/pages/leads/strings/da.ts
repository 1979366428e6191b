import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Leads',
  lead: 'Kontaktoplysninger, som besøgende har efterladt i samtaler, nyeste først.',
  export: 'Eksportér CSV',
  loading: 'Henter leads…',
  empty:
    'Ingen leads endnu. Slå indsamling af kontaktoplysninger til under Udseende → Kontaktoplysninger, så kan besøgende efterlade deres oplysninger.',
  count: '{count} leads',
  captured: 'Modtaget',
  name: 'Navn',
  email: 'E-mail',
  phone: 'Telefon',
  failed: 'Dine leads kunne ikke hentes: {message}',
} satisfies Partial2<Strings>;
