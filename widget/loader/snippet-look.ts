/**
 * The bubble's look carried by the embed snippet (`data-bubble`), so widget.js draws the bubble
 * as it runs instead of after the settings request, which then only confirms (or restyles) it.
 * Format: `brandColor,brandTextColor,R|L,distanceFromBottom,horizontalDistance,S|M|L[,iconUrl]`,
 * e.g. `#1f6feb,#ffffff,R,20,20,M`. Checked as strictly as the settings themselves: a value the
 * settings would refuse makes the whole attribute ignored (the loader then waits for the settings).
 */
import type { WidgetConfig } from '../../shared/protocol.js';

export interface BubbleLook {
  brandColor: string;
  brandTextColor: string;
  iconPosition: WidgetConfig['appearance']['iconPosition'];
  distanceFromBottom: number;
  horizontalDistance: number;
  iconSize: WidgetConfig['appearance']['iconSize'];
  /** A custom bubble icon (http/https), else null: the built-in icon. */
  icon: string | null;
}

const COLOR = /^#(?:[0-9a-fA-F]{3}){1,2}$/;
// The settings allow 0-2000 pixels (shared/settings.ts).
const PIXELS = /^(?:0|[1-9]\d{0,3})$/;
const POSITIONS = { R: 'BOTTOM_RIGHT', L: 'BOTTOM_LEFT' } as const;
const SIZES = { S: 'SMALL', M: 'MEDIUM', L: 'LARGE' } as const;

const pixels = (v: string | undefined): number | null => (v !== undefined && PIXELS.test(v) && +v <= 2000 ? +v : null);

/** The look from the attribute's value, or null when it is absent or anything in it is invalid. */
export function parseBubble(value: string | undefined | null): BubbleLook | null {
  if (!value || value.length > 2200) return null;
  const [brandColor, brandTextColor, side, bottom, horizontal, size, ...rest] = value.split(',');
  const icon = rest.length ? rest.join(',') : null;
  const distanceFromBottom = pixels(bottom);
  const horizontalDistance = pixels(horizontal);
  if (!COLOR.test(brandColor) || !COLOR.test(brandTextColor ?? '')) return null;
  if (distanceFromBottom === null || horizontalDistance === null) return null;
  if (!/^[RL]$/.test(side ?? '') || !/^[SML]$/.test(size ?? '')) return null;
  // Set as an <img> src property (never markup); only an absolute http(s) URL without spaces or quotes.
  if (icon !== null && (icon.length > 2048 || !/^https?:\/\/[^\s"'<>\\]+$/i.test(icon))) return null;
  return {
    brandColor,
    brandTextColor,
    iconPosition: POSITIONS[side as keyof typeof POSITIONS],
    distanceFromBottom,
    horizontalDistance,
    iconSize: SIZES[size as keyof typeof SIZES],
    icon,
  };
}

/** The look a config draws (what the snippet should carry). */
export function lookOf(cfg: WidgetConfig): BubbleLook {
  const a = cfg.appearance;
  const { brandColor, brandTextColor, iconPosition, distanceFromBottom, horizontalDistance, iconSize } = a;
  const icon = cfg.icons.bubble && /^https?:/i.test(cfg.icons.bubble) ? cfg.icons.bubble : null;
  return { brandColor, brandTextColor, iconPosition, distanceFromBottom, horizontalDistance, iconSize, icon };
}

/**
 * The embed snippet the playground gives a site owner. `fetchpriority="high"`: Chromium runs a
 * cross-site async script as a low-priority task behind the page's own loading work, which held the
 * bubble back until after the page's first frames; the hint keeps its normal priority (widget.js is
 * a few KB and a few ms of script, so the page's own loading barely notices). Still async: it never
 * blocks the page's parsing.
 */
export function embedSnippet(server: string, chatbotId: string, bubble?: string | null): string {
  return `<script src="${server}/widget.js" data-chatbot-id="${chatbotId}"${bubble ? ` data-bubble="${bubble}"` : ''} fetchpriority="high" async></script>`;
}

/** The attribute's value for a config (the playground's snippet), or null when the settings hold something it cannot carry. */
export function encodeBubble(cfg: WidgetConfig): string | null {
  const l = lookOf(cfg);
  const value = [
    l.brandColor,
    l.brandTextColor,
    l.iconPosition === 'BOTTOM_LEFT' ? 'L' : 'R',
    l.distanceFromBottom,
    l.horizontalDistance,
    l.iconSize[0],
    ...(l.icon ? [l.icon] : []),
  ].join(',');
  return parseBubble(value) ? value : null;
}
