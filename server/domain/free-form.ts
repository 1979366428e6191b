/**
 * Bounds for free-form JSON the API stores as given (`metadata`, a visitor's `customFields`):
 * nesting depth, serialised size and number of keys, so no body can make a value that is costly
 * to store, index or echo, and a value past them is a 400 VALIDATION_FAILED naming the field.
 */
import type { FieldError } from '../../shared/errors.js';

export const FREE_FORM_LIMITS = { maxDepth: 5, maxBytes: 16 * 1024, maxKeys: 200 } as const;

/** The problems of `value` as a free-form object at `path` (empty when within bounds). */
export function freeFormErrors(value: unknown, path: (string | number)[], limits = FREE_FORM_LIMITS): FieldError[] {
  if (value === null || value === undefined) return [];
  let keys = 0;
  let tooDeep = false;
  const walk = (v: unknown, depth: number) => {
    if (v === null || typeof v !== 'object' || tooDeep) return;
    if (depth > limits.maxDepth) {
      tooDeep = true;
      return;
    }
    const entries = Array.isArray(v) ? v : Object.values(v);
    keys += entries.length;
    for (const child of entries) walk(child, depth + 1);
  };
  walk(value, 1);
  if (tooDeep) return [{ path, message: `is nested more than ${limits.maxDepth} levels deep` }];
  if (keys > limits.maxKeys) return [{ path, message: `holds more than ${limits.maxKeys} keys and items` }];
  if (Buffer.byteLength(JSON.stringify(value)) > limits.maxBytes)
    return [{ path, message: `is larger than ${limits.maxBytes} bytes as JSON` }];
  return [];
}
