import { language } from '../../i18n/index.js';

/** A size in the console's language: 20 MB, 512 kB. */
export function formatBytes(n: number): string {
  const [value, unit] = n >= 1_048_576 ? [n / 1_048_576, 'megabyte'] : n >= 1024 ? [n / 1024, 'kilobyte'] : [n, 'byte'];
  // Bytes spelled out ("65 bytes"); kB and MB short.
  const unitDisplay = unit === 'byte' ? 'long' : 'short';
  return new Intl.NumberFormat(language.value, { style: 'unit', unit, unitDisplay, maximumFractionDigits: 1 }).format(
    value,
  );
}
