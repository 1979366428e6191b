// @vitest-environment happy-dom
/**
 * Texts a chatbot starts with (welcome message, placeholder, watermark, and the tooltip that
 * falls back to the welcome message) arrive as null and are written in the widget's locale; an
 * owner's text wins in any locale; an emptied one shows nothing.
 */
import { cleanup, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import type { WidgetConfig } from '../../shared/protocol.js';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import { en } from '../../widget/i18n/en.js';
import { launcherText } from '../../widget/i18n/launcher.js';
import { loadStrings } from '../../widget/i18n/locales.js';
import { createLauncher } from '../../widget/loader/launcher.js';
import { widgetConfig } from '../helpers/widget-config.js';
import { setup } from './harness.js';

afterEach(() => {
  cleanup();
  document.body.innerHTML = '';
});

/** The window as a German chatbot's visitor sees it. */
async function german(config: WidgetConfig = widgetConfig({ locale: 'de' })) {
  const t = setup(config);
  await t.act(() => t.model.i18n.setLocale('de'));
  return t;
}

const launcher = (config: WidgetConfig, locale: string) => {
  const l = createLauncher(config, locale, { intent() {}, toggle() {}, open() {} });
  document.body.append(l.element);
  return l;
};
const tooltip = () => document.querySelector('.tip')?.firstChild?.textContent;

describe('default texts in the widget language', () => {
  it('English text equals the stored defaults (what the server leaves out means exactly these)', () => {
    expect(launcherText('en').welcome).toBe(DEFAULT_SETTINGS.welcomeMessage);
    expect(en.ui.placeholder).toBe(DEFAULT_SETTINGS.placeholderText);
    expect(en.ui.poweredBy).toBe(DEFAULT_SETTINGS.watermarkText);
  });

  it('welcome message: German when untouched, the owner’s text when set, none when emptied', async () => {
    await german();
    expect(screen.getByRole('log').textContent).toContain('Hallo! Wie kann ich Ihnen heute helfen?');
    expect(screen.queryByText(DEFAULT_SETTINGS.welcomeMessage as string)).toBeNull();
    cleanup();
    await german(widgetConfig({ locale: 'de', appearance: { welcomeMessage: 'Grüß Gott!' } }));
    expect(screen.getByRole('log').textContent).toContain('Grüß Gott!');
    cleanup();
    await german(widgetConfig({ locale: 'de', appearance: { welcomeMessage: '' } }));
    expect(screen.getByRole('log').querySelector('.msg-ai')).toBeNull();
  });

  it('placeholder: German when untouched (also the label), the owner’s text when set', async () => {
    await german();
    const input = screen.getByRole('textbox');
    expect(input.getAttribute('placeholder')).toBe('Stellen Sie eine Frage…');
    expect(input.getAttribute('aria-label')).toBe('Stellen Sie eine Frage…');
    cleanup();
    await german(widgetConfig({ locale: 'de', appearance: { placeholderText: 'Ihre Frage zum Brot' } }));
    expect(screen.getByRole('textbox').getAttribute('placeholder')).toBe('Ihre Frage zum Brot');
    cleanup();
    await german(widgetConfig({ locale: 'de', appearance: { placeholderText: '' } }));
    expect(screen.getByRole('textbox').getAttribute('placeholder')).toBe('');
    expect(screen.getByRole('textbox').getAttribute('aria-label')).toBe('Senden');
  });

  it('watermark: German when untouched, the owner’s text when set, and nothing when emptied without an icon', async () => {
    await german();
    expect(screen.getByRole('link', { name: 'Bereitgestellt von Parley' }).getAttribute('href')).toBe(
      'https://parley.example/',
    );
    cleanup();
    await german(widgetConfig({ locale: 'de', watermark: { text: 'Ein Service von uns' } }));
    expect(screen.getByRole('link', { name: 'Ein Service von uns' })).toBeTruthy();
    cleanup();
    await german(widgetConfig({ locale: 'de', watermark: { text: '' } }));
    expect(document.querySelector('.watermark')).toBeNull();
  });

  it('tooltip on the bubble: the welcome message in the page’s language, the owner’s tooltip or welcome when set, none when the welcome was emptied', () => {
    launcher(widgetConfig({ locale: 'de' }), 'de');
    expect(tooltip()).toBe('Hallo! Wie kann ich Ihnen heute helfen?');
    expect(document.querySelector('.tip-close')!.getAttribute('aria-label')).toBe('Ausblenden');
    expect(document.querySelector('.bubble')!.getAttribute('aria-label')).toBe('Chat öffnen: Docs assistant');
    document.body.innerHTML = '';
    const l = launcher(widgetConfig({ locale: 'ja' }), 'ja');
    expect(tooltip()).toBe(launcherText('ja').welcome);
    // setLocale from the host page relabels it.
    l.relabel('fr');
    expect(tooltip()).toBe('Bonjour ! Comment puis-je vous aider aujourd’hui ?');
    expect(l.bubble.getAttribute('aria-label')).toBe('Ouvrir le chat: Docs assistant');
    document.body.innerHTML = '';
    launcher(widgetConfig({ locale: 'de', appearance: { welcomeMessage: 'Willkommen im Laden' } }), 'de');
    expect(tooltip()).toBe('Willkommen im Laden');
    document.body.innerHTML = '';
    launcher(widgetConfig({ locale: 'de', appearance: { tooltip: 'Fragen?', welcomeMessage: 'Willkommen' } }), 'de');
    expect(tooltip()).toBe('Fragen?');
    document.body.innerHTML = '';
    launcher(widgetConfig({ locale: 'de', appearance: { welcomeMessage: '' } }), 'de');
    expect(document.querySelector('.tip')).toBeNull();
  });

  it('every language has its own welcome, placeholder and watermark text', async () => {
    const { LOCALES } = await import('../../shared/settings.js');
    const seen = new Set<string>();
    for (const locale of LOCALES) {
      const s = await loadStrings(locale, null);
      const key = [launcherText(locale).welcome, s.ui.placeholder, s.ui.poweredBy].join('|');
      expect(seen.has(key), locale).toBe(false);
      seen.add(key);
      if (locale !== 'en') {
        expect(launcherText(locale).welcome, locale).not.toBe(launcherText('en').welcome);
        expect(s.ui.placeholder, locale).not.toBe(en.ui.placeholder);
        expect(s.ui.poweredBy, locale).not.toBe(en.ui.poweredBy);
      }
    }
  });
});
