/**
 * The console's appearance page shows every setting (spec 2.4): each field of every settings
 * section has a control in a group, in the section its PATCH goes to, and the option lists the
 * page keeps (shared/settings.ts carries TypeBox, too heavy for the browser) match the schema's.
 */
import { expect, it } from 'vitest';
import * as page from '../../console/pages/appearance/fields.js';
import { en } from '../../console/pages/appearance/strings/en.js';
import * as settings from '../../shared/settings.js';

it('has a control, in the right section, for every editable setting', () => {
  const schema = Object.fromEntries(
    settings.SETTINGS_SECTIONS.flatMap((section) =>
      Object.keys(settings.SECTION_FIELDS[section]).map((k) => [k, section]),
    ),
  );
  expect(page.SECTION_OF).toEqual(schema);
  expect([...page.READ_ONLY].sort()).toEqual(Object.keys(settings.READ_ONLY_SETTINGS).sort());
});

it('offers exactly the members of each enumeration', () => {
  for (const name of [
    'GPT_MODELS',
    'CREATIVITY',
    'CHAT_MODES',
    'COLLECT_USER_DETAILS',
    'ICON_SIZES',
    'ICON_POSITIONS',
    'AUTO_OPEN',
    'LOCALES',
    'LEAD_FIELD_TYPES',
    'WEBHOOK_PAYLOAD_VARIANTS',
  ] as const)
    expect([...page[name]].sort(), name).toEqual([...settings[name]].sort());
  expect(page.ICON_TYPES).toEqual(Object.fromEntries(Object.entries(settings.ICON_TYPES)));
});

it('gives every field a label and a line of help, and every option a readable name', () => {
  for (const fields of Object.values(page.GROUPS))
    for (const f of fields) {
      const words = (en.fields as Record<string, { label: string; help: string }>)[f.key];
      expect(words?.label, f.key).toBeTruthy();
      expect(words?.help, f.key).toBeTruthy();
      if (f.control.kind === 'select')
        for (const o of f.control.options)
          expect(
            (en.options as Record<string, Record<string, string>>)[f.control.labels]?.[o],
            `${f.key} ${o}`,
          ).toBeTruthy();
    }
});

it('is translated whole into every language of the widget', async () => {
  const leaves = (o: object, at = ''): string[] =>
    Object.entries(o).flatMap(([k, v]) => (typeof v === 'object' && v ? leaves(v, `${at}${k}.`) : [`${at}${k}`]));
  const english = leaves(en).sort();
  for (const language of page.LOCALES.filter((l) => l !== 'en')) {
    const strings = (await import(`../../console/pages/appearance/strings/${language}.ts`)).default;
    expect(leaves(strings).sort(), language).toEqual(english);
  }
});
