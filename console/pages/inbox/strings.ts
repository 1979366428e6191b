/// <reference types="vite/client" />
/** The inbox's strings in the current language (English built in, the others loaded on demand). */
import { useStrings, type Partial2 } from '../../i18n/index.js';
import { en, type Strings } from './strings/en.js';

const loaders = import.meta.glob<{ default: Partial2<Strings> }>(['./strings/*.ts', '!./strings/en.ts']);

export const useInboxStrings = () => useStrings(en, loaders);
