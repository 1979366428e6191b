/**
 * The rules of lead fields: a chatbot's `leadFields` setting (its own custom fields) and the
 * values a visitor or a team member gives for them and for the contact fields. Pure validation,
 * read by the chatbot settings and by every path that captures a lead.
 */
import type { FieldError } from '../../../shared/errors.js';
import type { LEAD_FIELD_TYPES } from '../../../shared/settings.js';

export interface LeadField {
  key: string;
  label: string;
  type: (typeof LEAD_FIELD_TYPES)[number];
  required: boolean;
  options?: string[];
}

const EMAIL = /^[^\s@]{1,200}@[^\s@]{1,200}\.[^\s@]{1,60}$/;
const PHONE = /^\+?[0-9 ().-]{3,40}$/;
const MAX_TEXT = 1000;

/** The problems of a `leadFields` setting that its JSON schema cannot see (unique keys, select options). */
export function checkLeadFields(fields: LeadField[]): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    if (seen.has(f.key))
      errors.push({
        path: ['leadFields', i, 'key'],
        message: `"${f.key}" is used by an earlier field; keys must be unique`,
      });
    seen.add(f.key);
    if (f.type === 'select' && !f.options?.length)
      errors.push({ path: ['leadFields', i, 'options'], message: 'a select field needs its options' });
    if (f.type !== 'select' && f.options !== undefined)
      errors.push({ path: ['leadFields', i, 'options'], message: 'only a select field has options' });
  });
  return errors;
}

/** The chatbot's custom lead fields ([] when none are set). */
export const leadFieldsOf = (settings: Record<string, unknown>): LeadField[] =>
  Array.isArray(settings.leadFields) ? (settings.leadFields as LeadField[]) : [];

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** A contact field trimmed and checked (e-mail lowercased); null when blank; problems go to `errors`. */
export function normalizeContact(
  value: unknown,
  path: string,
  kind: 'text' | 'email' | 'phone',
  errors: FieldError[],
): string | null {
  if (blank(value)) return null;
  if (typeof value !== 'string') {
    errors.push({ path: [path], message: 'must be a string' });
    return null;
  }
  const v = value.trim();
  if (kind === 'email' && !EMAIL.test(v)) errors.push({ path: [path], message: 'must be an e-mail address' });
  else if (kind === 'phone' && (!PHONE.test(v) || (v.match(/[0-9]/g)?.length ?? 0) < 3))
    errors.push({ path: [path], message: 'must be a phone number (digits, spaces, + ( ) . -)' });
  else if (v.length > (kind === 'text' ? 200 : 254)) errors.push({ path: [path], message: 'is too long' });
  return kind === 'email' ? v.toLowerCase() : v;
}

function customValue(field: LeadField, value: unknown, errors: FieldError[]): string | number | undefined {
  const path = ['customFields', field.key];
  if (blank(value)) {
    if (field.required) errors.push({ path, message: `is required (${field.label})` });
    return undefined;
  }
  if (field.type === 'number') {
    const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : Number.NaN;
    if (!Number.isFinite(n)) errors.push({ path, message: 'must be a number' });
    return n;
  }
  if (typeof value !== 'string' && typeof value !== 'number') {
    errors.push({ path, message: 'must be a string' });
    return undefined;
  }
  const v = String(value).trim();
  if (v.length > MAX_TEXT) errors.push({ path, message: `must be at most ${MAX_TEXT} characters` });
  else if (field.type === 'email' && !EMAIL.test(v)) errors.push({ path, message: 'must be an e-mail address' });
  else if (field.type === 'phone' && !PHONE.test(v))
    errors.push({ path, message: 'must be a phone number (digits, spaces, + ( ) . -)' });
  else if (field.type === 'select' && !(field.options ?? []).includes(v))
    errors.push({ path, message: `must be one of ${(field.options ?? []).join(', ')}` });
  return field.type === 'email' ? v.toLowerCase() : v;
}

/**
 * Validates `values` against the chatbot's lead fields: keys it does not define are dropped,
 * required ones that are missing or blank and values of the wrong kind are errors (all of them
 * reported at once).
 */
export function validateCustomFields(fields: LeadField[], values: Record<string, unknown>, errors: FieldError[] = []) {
  const out: Record<string, string | number> = {};
  for (const field of fields) {
    const v = customValue(field, Object.hasOwn(values, field.key) ? values[field.key] : undefined, errors);
    if (v !== undefined) out[field.key] = v;
  }
  return out;
}
