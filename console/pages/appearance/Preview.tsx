/**
 * The real widget (widget.js, as visitors load it) drawing settings not saved yet, in a frame the
 * size of a computer's or a phone's screen, light or dark. Each change draws into a new frame of
 * our own origin (it inherits the console's CSP) that replaces the shown one once the widget has
 * opened in it, so the preview never blinks empty. The config is the server's own widgetConfig()
 * of the unsaved settings, handed to widget.js as window.parleyPreview (data-preview).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { WidgetConfig } from '../../../shared/protocol.js';
import { fill } from '../../i18n/index.js';
import type { Strings } from './strings/en.js';

type Device = 'desktop' | 'phone';
type Theme = 'light' | 'dark';

/** The screen each frame stands for, in CSS pixels; the desktop one is wider than the widget's phone layout (640). */
const SCREENS: Record<Device, { width: number; height: number }> = {
  desktop: { width: 720, height: 680 },
  phone: { width: 390, height: 760 },
};
/** Typing redraws once it pauses, not at every key. */
const REDRAW_MS = 200;
/** A frame whose widget never says it opened is shown anyway after this long. */
const SWAP_AFTER_MS = 3000;

interface PreviewProps {
  config: WidgetConfig;
  dirty: boolean;
  t: Strings;
}

export function Preview({ config, dirty, t }: PreviewProps) {
  const [device, setDevice] = useState<Device>('desktop');
  const [theme, setTheme] = useState<Theme>(() =>
    globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
  );
  const stage = useRef<HTMLDivElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const [scale, setScale] = useState(1);
  const screen = SCREENS[device];
  const label = fill(t.preview.frame, {
    device: device === 'desktop' ? t.preview.desktop : t.preview.phone,
    theme: theme === 'dark' ? t.preview.dark : t.preview.light,
  });

  // The frame is drawn at the screen's size and scaled down to the column's width.
  useEffect(() => {
    const el = box.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    // The phone's bezel (2 × 8 px) sits outside the screen; the frame keeps most of the window's height free.
    const bezel = device === 'phone' ? 16 : 0;
    const fit = () =>
      setScale(
        Math.min(1, (el.clientWidth - bezel) / screen.width, (window.innerHeight * 0.75 - bezel) / screen.height),
      );
    fit();
    const observer = new ResizeObserver(fit);
    observer.observe(el);
    return () => observer.disconnect();
  }, [device]);

  useEffect(() => {
    const host = stage.current;
    if (!host) return;
    let frame: HTMLIFrameElement | null = null;
    let swapTimer: ReturnType<typeof setTimeout> | undefined;
    const timer = setTimeout(() => {
      frame = drawFrame(config, theme, screen, label, () => {
        clearTimeout(swapTimer);
        for (const old of host.querySelectorAll('iframe')) if (old !== frame) old.remove();
        frame?.classList.add('shown');
      });
      host.append(frame);
      swapTimer = setTimeout(() => frame?.dispatchEvent(new Event('parley-open')), SWAP_AFTER_MS);
    }, REDRAW_MS);
    return () => {
      clearTimeout(timer);
      clearTimeout(swapTimer);
      // A frame still loading is dropped; the shown one stays until the next replaces it.
      if (frame && !frame.classList.contains('shown')) frame.remove();
    };
  }, [config, theme, device]);

  useEffect(() => () => stage.current?.replaceChildren(), []);

  return (
    <section class="ap-preview" aria-labelledby="ap-preview-title">
      <div class="ap-preview-head">
        <h2 id="ap-preview-title">{t.preview.heading}</h2>
        <Choice<Device>
          label={t.preview.device}
          value={device}
          options={[
            ['desktop', t.preview.desktop],
            ['phone', t.preview.phone],
          ]}
          onChange={setDevice}
        />
        <Choice<Theme>
          label={t.preview.theme}
          value={theme}
          options={[
            ['light', t.preview.light],
            ['dark', t.preview.dark],
          ]}
          onChange={setTheme}
        />
      </div>
      <p class="muted small">
        {dirty && <strong class="ap-unsaved-badge">{t.preview.unsaved}. </strong>}
        {t.preview.note}
      </p>
      <div class="ap-preview-box" ref={box}>
        <div
          class={`ap-device ap-${device} ap-theme-${theme}`}
          ref={(el) => {
            if (!el) return;
            el.style.width = `${screen.width * scale}px`;
            el.style.height = `${screen.height * scale}px`;
          }}
        >
          <div
            class="ap-stage"
            data-device={device}
            data-theme={theme}
            ref={(el) => {
              stage.current = el;
              if (!el) return;
              el.style.width = `${screen.width}px`;
              el.style.height = `${screen.height}px`;
              el.style.transform = `scale(${scale})`;
            }}
          />
        </div>
      </div>
    </section>
  );
}

/** A pair of buttons of which one is pressed (a segmented control). */
function Choice<T extends string>(props: {
  label: string;
  value: T;
  options: Array<[T, string]>;
  onChange(v: T): void;
}) {
  return (
    <div class="ap-choice" role="group" aria-label={props.label}>
      {props.options.map(([v, text]) => (
        <button type="button" aria-pressed={props.value === v} onClick={() => props.onChange(v)}>
          {text}
        </button>
      ))}
    </div>
  );
}

/**
 * A same-origin frame with a page-like backdrop and widget.js drawing `config` opened; `shown`
 * runs once the widget opened (or SWAP_AFTER_MS passed).
 */
function drawFrame(
  config: WidgetConfig,
  theme: Theme,
  screen: { width: number; height: number },
  title: string,
  shown: () => void,
): HTMLIFrameElement {
  const frame = document.createElement('iframe');
  frame.title = title;
  frame.dataset.theme = theme;
  frame.width = String(screen.width);
  frame.height = String(screen.height);
  frame.srcdoc =
    '<!doctype html><html><head><meta name="viewport" content="width=device-width"></head><body></body></html>';
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    shown();
  };
  frame.addEventListener('parley-open', once);
  frame.addEventListener('load', () => {
    const win = frame.contentWindow as (Window & { parleyPreview?: WidgetConfig; parley?: unknown[] }) | null;
    const doc = frame.contentDocument;
    if (!win || !doc) return once();
    backdrop(doc, theme);
    win.parleyPreview = config;
    // The window opens once drawn; its first frame after that replaces the previous preview.
    win.parley = [['on', 'open', () => win.requestAnimationFrame(() => setTimeout(once, 50))], ['open']];
    const script = doc.createElement('script');
    script.src = `${location.origin}/widget.js`;
    script.async = true;
    script.dataset.chatbotId = config.chatbotId;
    script.dataset.preview = '';
    script.dataset.theme = theme;
    doc.body.append(script);
  });
  return frame;
}

/** A plain page behind the widget: a header bar and a few lines of text, in the frame's scheme. */
function backdrop(doc: Document, theme: Theme) {
  const dark = theme === 'dark';
  const page = doc.body;
  page.style.cssText = `margin:0;min-height:100vh;background:${dark ? '#121418' : '#f4f5f7'};font:15px system-ui,sans-serif`;
  doc.documentElement.style.colorScheme = theme;
  const bar = doc.createElement('div');
  bar.style.cssText = `height:56px;background:${dark ? '#1f232a' : '#ffffff'};border-bottom:1px solid ${dark ? '#2c313a' : '#e3e6ea'}`;
  page.append(bar);
  const main = doc.createElement('div');
  main.style.cssText = 'padding:32px 24px;max-width:560px';
  for (const [w, h] of [
    [60, 28],
    [95, 12],
    [88, 12],
    [92, 12],
    [70, 12],
    [40, 120],
  ]) {
    const line = doc.createElement('div');
    line.style.cssText = `width:${w}%;height:${h}px;margin:0 0 14px;border-radius:6px;background:${dark ? '#2a2f37' : '#e3e6ea'}`;
    main.append(line);
  }
  page.append(main);
}
