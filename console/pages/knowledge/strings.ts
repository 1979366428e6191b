/// <reference types="vite/client" />
/** The knowledge page's strings in the current language (English built in, the others loaded on demand). */
import { fill, useStrings, type Partial2 } from '../../i18n/index.js';
import { en, type Strings } from './strings/en.js';

const loaders = import.meta.glob<{ default: Partial2<Strings> }>(['./strings/*.ts', '!./strings/en.ts']);

export const useKnowledgeStrings = () => useStrings(en, loaders);
export type { Strings };

/** `text` filled with `count`, or the `one` wording when count is 1 (tables keep a `…One` key beside each count). */
export const counted = (text: string, one: string, count: number, values: Record<string, string | number> = {}) =>
  fill(count === 1 ? one : text, { count, ...values });
