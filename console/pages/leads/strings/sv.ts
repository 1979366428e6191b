import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Leads',
  lead: 'Kontaktuppgifter som besökare lämnat i konversationer, nyaste först.',
  export: 'Exportera CSV',
  loading: 'Hämtar leads…',
  empty:
    'Inga leads ännu. Slå på insamling av kontaktuppgifter under Utseende → Kontaktuppgifter så kan besökare lämna sina uppgifter.',
  count: '{count} leads',
  captured: 'Mottagen',
  name: 'Namn',
  email: 'E-post',
  phone: 'Telefon',
  failed: 'Det gick inte att hämta leads: {message}',
} satisfies Partial2<Strings>;
