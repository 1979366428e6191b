/**
 * The widget config leaves the English texts a chatbot starts with (stored, so the v2 API shows
 * them) to the widget, which writes them in the visitor's language; an owner's own text, or an
 * emptied one, goes out as it is.
 */
import { describe, expect, it } from 'vitest';
import type { ChatbotRecord } from '../../../../server/domain/ports.js';
import { widgetConfig } from '../../../../shared/widget-config.js';
import { DEFAULT_SETTINGS } from '../../../../shared/settings.js';

const chatbot = (settings: Record<string, unknown>): ChatbotRecord => ({
  id: 'bot1',
  accountId: 'acc1',
  createdById: 'u1',
  title: 'Bäckerei',
  description: '',
  settings: { ...DEFAULT_SETTINGS, localization: { locale: 'de' }, ...settings },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

describe('widget config texts', () => {
  it('untouched defaults go out as null, for the widget to write in its locale', () => {
    const config = widgetConfig(chatbot({}), [], []);
    expect(config.locale).toBe('de');
    expect(config.appearance.welcomeMessage).toBeNull();
    expect(config.appearance.placeholderText).toBeNull();
    expect(config.watermark.text).toBeNull();
    expect(config.appearance.tooltip).toBeNull();
    // Settings stored before a default existed count as untouched too.
    const { welcomeMessage: _w, placeholderText: _p, watermarkText: _t, ...older } = DEFAULT_SETTINGS;
    const old = widgetConfig({ ...chatbot({}), settings: older }, [], []);
    expect([old.appearance.welcomeMessage, old.appearance.placeholderText, old.watermark.text]).toEqual([
      null,
      null,
      null,
    ]);
  });

  it("the owner's own texts go out as they are, whatever the locale", () => {
    const config = widgetConfig(
      chatbot({
        welcomeMessage: 'Willkommen!',
        placeholderText: 'Ihre Frage',
        watermarkText: 'Von uns',
        tooltip: 'Fragen?',
      }),
      [],
      [],
    );
    expect(config.appearance).toMatchObject({
      welcomeMessage: 'Willkommen!',
      placeholderText: 'Ihre Frage',
      tooltip: 'Fragen?',
    });
    expect(config.watermark.text).toBe('Von uns');
  });

  it("a text the owner emptied (null or '') goes out as '': the widget shows none", () => {
    for (const cleared of [null, '']) {
      const config = widgetConfig(
        chatbot({ welcomeMessage: cleared, placeholderText: cleared, watermarkText: cleared }),
        [],
        [],
      );
      expect(
        [config.appearance.welcomeMessage, config.appearance.placeholderText, config.watermark.text],
        String(cleared),
      ).toEqual(['', '', '']);
    }
  });
});
