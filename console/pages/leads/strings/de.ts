import type { Partial2 } from '../../../i18n/index.js';
import type { Strings } from './en.js';

export default {
  title: 'Leads',
  lead: 'Kontaktdaten, die Besucher in Unterhaltungen hinterlassen haben, die neuesten zuerst.',
  export: 'Als CSV exportieren',
  loading: 'Leads werden geladen…',
  empty:
    'Noch keine Leads. Schalten Sie die Kontakterfassung unter Aussehen → Kontakterfassung ein, dann können Besucher ihre Daten hinterlassen.',
  count: '{count} Leads',
  captured: 'Erfasst',
  name: 'Name',
  email: 'E-Mail',
  phone: 'Telefon',
  failed: 'Die Leads konnten nicht geladen werden: {message}',
} satisfies Partial2<Strings>;
