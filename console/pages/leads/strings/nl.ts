import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Leads',
  lead: 'Contactgegevens die bezoekers in gesprekken achterlieten, nieuwste eerst.',
  export: 'CSV exporteren',
  loading: 'Leads laden…',
  empty:
    'Nog geen leads. Zet het verzamelen van contactgegevens aan onder Uiterlijk → Contactgegevens, dan kunnen bezoekers hun gegevens achterlaten.',
  count: '{count} leads',
  captured: 'Ontvangen',
  name: 'Naam',
  email: 'E-mail',
  phone: 'Telefoon',
  failed: 'De leads konden niet worden geladen: {message}',
} satisfies Partial2<Strings>;
