/** What the KnowledgeStore's repositories share: batch size, timestamps, JSON columns, patches. */

/** Rows per multi-row insert: far below SQLite's 32,766 bound variables and PostgreSQL's 65,535. */
export const BATCH = 500;

export const now = () => new Date().toISOString();
export const json = (value: string | null) => (value === null ? null : (JSON.parse(value) as Record<string, unknown>));

/** Patch keys in the domain's terms -> column names; undefined keys are left out of the update. */
export function columns<T extends object>(
  patch: T,
  names: { [K in keyof T]?: string },
  encode: { [K in keyof T]?: (v: T[K]) => unknown } = {},
) {
  const set: Record<string, unknown> = {};
  for (const key of Object.keys(patch) as (keyof T)[]) {
    const column = names[key];
    if (column === undefined || patch[key] === undefined) continue;
    const fn = encode[key];
    set[column] = fn ? fn(patch[key]) : patch[key];
  }
  return set;
}
