// @vitest-environment happy-dom
/**
 * The launcher widget.js draws (loader/launcher.ts), driven by the chat model as app.tsx wires
 * it (state/launcher-binding.ts): the unread badge while closed, auto-open after the delay for
 * the kind of screen, the tooltip and its dismiss button, the bubble hidden behind a phone's
 * full-screen window. Screen kinds come from matchMedia, stubbed per test (happy-dom has no
 * layout); the delays run on fake timers.
 */
import { cleanup } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WidgetConfig } from '../../shared/protocol.js';
import { LANGUAGES, launcherText } from '../../widget/i18n/launcher.js';
import { createLauncher, type LauncherEvents, MOBILE, PHONE, scheduleAutoOpen } from '../../widget/loader/launcher.js';
import { bindLauncher } from '../../widget/state/launcher-binding.js';
import { widgetConfig } from '../helpers/widget-config.js';
import { message, setup } from './harness.js';

/** matchMedia answering true for exactly these queries. */
function screenIs(...matching: string[]) {
  vi.spyOn(window, 'matchMedia').mockImplementation(
    (query: string) => ({ matches: matching.includes(query), media: query }) as MediaQueryList,
  );
}

const calls = () => {
  const seen: string[] = [];
  const on: LauncherEvents = {
    intent: () => void seen.push('intent'),
    toggle: () => void seen.push('toggle'),
    open: () => void seen.push('open'),
  };
  return { seen, on };
};

function mount(config: WidgetConfig, on: LauncherEvents) {
  const launcher = createLauncher(config, config.locale, on);
  document.body.append(launcher.element);
  return launcher;
}

beforeEach(() => screenIs());
afterEach(() => {
  cleanup();
  document.body.innerHTML = '';
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('unread badge on the bubble', () => {
  it('counts team and AI messages that arrive while the window is closed; opening clears it', () => {
    const t = setup(undefined, { stored: { token: 't', conversationId: 'conv1' } });
    t.act(() => t.model.ui.setOpen(false));
    const from = t.events.length;
    const launcher = mount(t.model.config, {
      intent() {},
      open() {},
      toggle: () => t.model.ui.setOpen(!t.model.ui.open.value),
    });
    const unbind = bindLauncher(t.model, launcher);
    const badge = launcher.bubble.querySelector('.badge') as HTMLElement;
    expect(badge.hidden).toBe(true);

    const agent = { id: 'u1', name: 'Dana', avatarUrl: null };
    const fromAgent = message({ author: 'agent', agent, name: 'Dana', text: 'Still there?' });
    const fromAi = message({ author: 'ai', text: 'Anything else?' });
    const mine = message({ author: 'visitor', text: 'typed in another tab' });
    // A reply sent long ago (a replay of the history) is not new.
    const old = message({
      author: 'agent',
      agent,
      text: 'Yesterday',
      createdAt: new Date(Date.now() - 3_600_000).toISOString(),
    });
    t.play(
      ...[fromAgent, fromAi, mine, old].map((m) => ({
        type: 'message.created' as const,
        conversationId: 'conv1',
        seq: m.seq,
        message: m,
      })),
    );
    expect(badge.hidden).toBe(false);
    expect(badge.textContent).toBe('2');
    expect(
      t.events
        .slice(from)
        .filter((e) => e.event === 'unread')
        .map((e) => e.detail),
    ).toEqual([1, 2]);

    const more = Array.from({ length: 9 }, (_, i) => message({ author: 'ai', text: `more ${i}` }));
    t.play(...more.map((m) => ({ type: 'message.created' as const, conversationId: 'conv1', seq: m.seq, message: m })));
    expect(badge.textContent).toBe('9+');

    t.act(() => launcher.bubble.click());
    expect(t.model.ui.open.value).toBe(true);
    expect(badge.hidden).toBe(true);
    expect(launcher.bubble.getAttribute('aria-expanded')).toBe('true');
    expect(t.events.at(-1)).toEqual({ event: 'unread', detail: 0 });
    // While open, nothing is unread.
    const seen = message({ author: 'ai', text: 'read at once' });
    t.play({ type: 'message.created', conversationId: 'conv1', seq: seen.seq, message: seen });
    expect(badge.hidden).toBe(true);
    unbind();
  });
});

describe("the bubble's accessible label", () => {
  it('names the unread count while there is one (the badge itself is not read out), in the current language', () => {
    const config = widgetConfig();
    const launcher = mount(config, calls().on);
    const label = () => launcher.bubble.getAttribute('aria-label');
    expect(label()).toBe('Open chat: Docs assistant');
    launcher.setUnread(3);
    expect(label()).toBe('Open chat: Docs assistant, 3 unread');
    // The badge caps at 9+, the label tells the real count.
    launcher.setUnread(12);
    expect(launcher.bubble.querySelector('.badge')!.textContent).toBe('9+');
    expect(label()).toBe('Open chat: Docs assistant, 12 unread');
    // setLocale relabels with the count kept.
    launcher.relabel('de-AT');
    expect(label()).toBe('Chat öffnen: Docs assistant, 12 ungelesen');
    launcher.relabel('ja');
    expect(label()).toBe('チャットを開く: Docs assistant, 未読 12 件');
    launcher.setUnread(0);
    expect(label()).toBe('チャットを開く: Docs assistant');
  });

  it('every language has its own unread text with the count in it', () => {
    expect(LANGUAGES).toHaveLength(13);
    for (const lang of LANGUAGES) {
      expect(launcherText(lang).unread, lang).toContain('{n}');
      if (lang !== 'en') expect(launcherText(lang).unread, lang).not.toBe(launcherText('en').unread);
      const launcher = mount(widgetConfig({ locale: lang }), calls().on);
      launcher.setUnread(4);
      expect(launcher.bubble.getAttribute('aria-label'), lang).toBe(
        `${launcherText(lang).openChat}: Docs assistant, ${launcherText(lang).unread.replace('{n}', '4')}`,
      );
    }
  });
});

describe('auto-open', () => {
  const config = widgetConfig({
    appearance: {
      autoOpenChatWindowInDesktop: 'ALWAYS_OPEN_WITH_DELAY',
      autoOpenChatWindowDelayInDesktop: 5000,
      autoOpenChatWindowInMobile: 'ALWAYS_OPEN_WITH_DELAY',
      autoOpenChatWindowDelayInMobile: 1500,
    },
  });

  it('desktop: opens after the desktop delay', () => {
    vi.useFakeTimers();
    const open = vi.fn();
    scheduleAutoOpen(config.appearance, open);
    vi.advanceTimersByTime(4999);
    expect(open).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('mobile (a narrow or touch-first screen): opens after the mobile delay', () => {
    vi.useFakeTimers();
    screenIs(MOBILE);
    const open = vi.fn();
    scheduleAutoOpen(config.appearance, open);
    vi.advanceTimersByTime(1499);
    expect(open).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(open).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('each kind of screen follows its own setting: DONT_OPEN on one does not stop the other', () => {
    vi.useFakeTimers();
    const desktopOnly = widgetConfig({
      appearance: {
        autoOpenChatWindowInDesktop: 'ALWAYS_OPEN_WITH_DELAY',
        autoOpenChatWindowDelayInDesktop: 100,
        autoOpenChatWindowInMobile: 'DONT_OPEN',
      },
    });
    const onPhone = vi.fn();
    screenIs(MOBILE);
    scheduleAutoOpen(desktopOnly.appearance, onPhone);
    vi.advanceTimersByTime(60_000);
    expect(onPhone).not.toHaveBeenCalled();
    const onDesktop = vi.fn();
    screenIs();
    scheduleAutoOpen(desktopOnly.appearance, onDesktop);
    vi.advanceTimersByTime(100);
    expect(onDesktop).toHaveBeenCalledTimes(1);
  });

  it('DONT_OPEN never opens; a cancelled schedule does not open', () => {
    vi.useFakeTimers();
    const open = vi.fn();
    scheduleAutoOpen(widgetConfig().appearance, open);
    const cancel = scheduleAutoOpen(config.appearance, open);
    cancel();
    vi.advanceTimersByTime(60_000);
    expect(open).not.toHaveBeenCalled();
  });
});

describe('tooltip', () => {
  it('dismiss hides it without opening; a click on it opens; opening the window hides it', () => {
    const { seen, on } = calls();
    mount(widgetConfig({ appearance: { tooltip: 'Questions? Ask us' } }), on);
    const tip = document.querySelector('.tip') as HTMLElement;
    expect(tip.hidden).toBe(false);
    expect(tip.getAttribute('role')).toBe('status');
    expect(tip.textContent).toContain('Questions? Ask us');
    (document.querySelector('.tip-close') as HTMLElement).click();
    expect(tip.hidden).toBe(true);
    expect(seen).toEqual([]);

    document.body.innerHTML = '';
    const second = mount(widgetConfig(), on);
    (document.querySelector('.tip') as HTMLElement).click();
    expect(seen).toEqual(['open']);
    second.setOpen(true);
    expect((document.querySelector('.tip') as HTMLElement).hidden).toBe(true);
    second.setOpen(false);
    expect((document.querySelector('.tip') as HTMLElement).hidden).toBe(true);
  });

  it('hideTooltip: no tooltip, whatever the texts', () => {
    mount(
      widgetConfig({ appearance: { hideTooltip: true, tooltip: 'Questions?', welcomeMessage: 'Hello' } }),
      calls().on,
    );
    expect(document.querySelector('.tip')).toBeNull();
    expect(document.querySelector('.bubble')).not.toBeNull();
  });
});

describe('bubble', () => {
  it('the first hover, focus or touch signals intent once; a click toggles', () => {
    const { seen, on } = calls();
    const launcher = mount(widgetConfig({ appearance: { hideTooltip: true } }), on);
    launcher.bubble.dispatchEvent(new Event('pointerenter'));
    launcher.bubble.dispatchEvent(new Event('pointerenter'));
    launcher.bubble.click();
    expect(seen).toEqual(['intent', 'toggle']);
  });

  it('hidden behind the full-screen window on a phone, kept beside it on a desktop; hideBubble hides it', () => {
    const launcher = mount(widgetConfig(), calls().on);
    launcher.setOpen(true);
    expect(launcher.element.hidden).toBe(false);
    screenIs(PHONE);
    launcher.setOpen(true);
    expect(launcher.element.hidden).toBe(true);
    launcher.setOpen(false);
    expect(launcher.element.hidden).toBe(false);
    launcher.setHidden(true);
    expect(launcher.element.hidden).toBe(true);
    launcher.setHidden(false);
    expect(launcher.element.hidden).toBe(false);
  });

  it('while the window is open beside it, the bubble closes it: its label says so and it holds the closing chevron', () => {
    const launcher = mount(widgetConfig({ name: 'Shop', locale: 'de' }), calls().on);
    expect(launcher.bubble.getAttribute('aria-label')).toBe('Chat öffnen: Shop');
    launcher.setOpen(true);
    expect(launcher.bubble.getAttribute('aria-label')).toBe('Chat schließen: Shop');
    expect(launcher.bubble.getAttribute('aria-expanded')).toBe('true');
    // bubble.css shows .close-icon instead of the first child (the icon) while aria-expanded is true.
    expect(launcher.bubble.firstElementChild!.classList.contains('close-icon')).toBe(false);
    expect(launcher.bubble.querySelectorAll('.close-icon')).toHaveLength(1);
    launcher.setOpen(false);
    expect(launcher.bubble.getAttribute('aria-label')).toBe('Chat öffnen: Shop');
  });
});

describe('drawn from the snippet before the settings (data-bubble)', () => {
  it("shows the bubble with the snippet's icon and no tooltip, then the settings add the tooltip and name and swap the icon in place", () => {
    const launcher = createLauncher(null, 'en', calls().on, 'https://cdn.example.com/bubble.png');
    document.body.append(launcher.element);
    const bubble = launcher.bubble;
    expect(bubble.querySelector('img')!.getAttribute('src')).toBe('https://cdn.example.com/bubble.png');
    expect(launcher.element.querySelector('.tip')).toBeNull();
    expect(bubble.getAttribute('aria-label')).toBe(launcherText('en').openChat);

    // The owner removed the custom icon since the snippet was copied; the tooltip is server text.
    launcher.configure(widgetConfig({ appearance: { tooltip: 'Questions? Ask us' } }));
    expect(document.querySelectorAll('.bubble')).toHaveLength(1);
    expect(launcher.element.lastElementChild).toBe(bubble);
    expect(bubble.querySelector('img')).toBeNull();
    expect(bubble.querySelector('svg')).not.toBeNull();
    expect(bubble.querySelector('.badge')).not.toBeNull();
    expect(launcher.element.querySelector('.tip')!.textContent).toContain('Questions? Ask us');
    expect(bubble.getAttribute('aria-label')).toBe(`${launcherText('en').openChat}: Docs assistant`);
  });
});
