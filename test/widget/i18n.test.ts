import { describe, expect, it } from 'vitest';
import { en } from '../../widget/i18n/en.js';
import { fill, loadStrings, mergeStrings } from '../../widget/i18n/locales.js';

describe('widget strings', () => {
  it('loads a language chunk by base language, English for the rest', async () => {
    expect((await loadStrings('de-CH', null)).chatMessage.cancel).toBe('Abbrechen');
    expect((await loadStrings('ja', null)).ui.send).toBe('送信');
    expect((await loadStrings('es', null)).chatAccount.logout).toBe('Cerrar sesión');
    expect((await loadStrings('sv', null)).ui.send).toBe(en.ui.send);
  });

  it('owner overrides win string by string; unknown keys, blanks and non-strings are ignored', () => {
    const s = mergeStrings(en, { learnMore: 'Read on', chatMessage: { cancel: 'No thanks', bogus: 'x', yesContinue: '  ' }, chatAccount: { otp: 42 }, nope: { a: 'b' } });
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
