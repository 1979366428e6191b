import { describe, expect, it } from 'vitest';
import { LOCALES } from '../../shared/settings.js';
import { en } from '../../widget/i18n/en.js';
import { isRtl, launcherText } from '../../widget/i18n/launcher.js';
import { fill, loadStrings, mergeStrings } from '../../widget/i18n/locales.js';

describe('widget strings', () => {
  it('loads a language chunk by base language, English for the rest', async () => {
    expect((await loadStrings('de-CH', null)).chatMessage.cancel).toBe('Abbrechen');
    expect((await loadStrings('ja', null)).ui.send).toBe('送信');
    expect((await loadStrings('es', null)).chatAccount.logout).toBe('Cerrar sesión');
    expect((await loadStrings('sv-FI', null)).chatMessage.cancel).toBe('Avbryt');
    expect((await loadStrings('ko', null)).ui.send).toBe(en.ui.send);
  });

  it('every supported locale loads a complete Strings object in its own language', async () => {
    for (const locale of LOCALES) {
      const s = await loadStrings(locale, null);
      for (const [group, value] of Object.entries(en)) {
        const entries =
          typeof value === 'string'
            ? [[group, s[group as keyof typeof s]]]
            : Object.keys(value).map((k) => [
                `${group}.${k}`,
                (s[group as keyof typeof s] as Record<string, unknown>)?.[k],
              ]);
        for (const [key, text] of entries as [string, unknown][]) {
          expect(typeof text, `${locale} ${key}`).toBe('string');
          if (key !== 'chatMessage.botName') expect((text as string).trim(), `${locale} ${key}`).not.toBe('');
        }
      }
      if (locale === 'en') continue;
      expect(s.ui.send, locale).not.toBe(en.ui.send);
      expect(s.chatAccount.verifyEmail, locale).not.toBe(en.chatAccount.verifyEmail);
    }
  });

  it('Arabic and Hebrew ship, and they alone of the languages are written right to left', async () => {
    expect((await loadStrings('ar', null)).ui.send).toBe('إرسال');
    expect((await loadStrings('he-IL', null)).ui.send).toBe('שליחה');
    expect(launcherText('ar').openChat).toBe('فتح المحادثة');
    expect(LOCALES.filter(isRtl)).toEqual(['ar', 'he']);
    expect(isRtl('he-IL')).toBe(true);
  });

  it('owner overrides win string by string; unknown keys, blanks and non-strings are ignored', () => {
    const s = mergeStrings(en, {
      learnMore: 'Read on',
      chatMessage: { cancel: 'No thanks', bogus: 'x', yesContinue: '  ' },
      chatAccount: { otp: 42 },
      nope: { a: 'b' },
    });
    expect(s.learnMore).toBe('Read on');
    expect(s.chatMessage.cancel).toBe('No thanks');
    expect(s.chatMessage.yesContinue).toBe(en.chatMessage.yesContinue);
    expect(s.chatAccount.otp).toBe(en.chatAccount.otp);
    expect('bogus' in s.chatMessage).toBe(false);
    expect(en.chatMessage.cancel).toBe('Cancel');
  });

  it('fills placeholders', () => {
    expect(fill('{name} is typing…', { name: 'Dana' })).toBe('Dana is typing…');
    expect(fill('{missing}', {})).toBe('{missing}');
  });
});
