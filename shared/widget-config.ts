/**
 * The public widget configuration (shared/protocol.ts WidgetConfig): only what a visitor's
 * browser needs to draw the widget. Built field by field from the settings, so nothing is
 * published by accident: instructions, personas, prompts, webhook targets and tokens, identity
 * secrets, metadata and extraData are never read here. A pure function of its inputs: the
 * playground (demo/) and the console's appearance page run it on settings not saved yet, so its preview is what visitors would get.
 */
import type { WidgetConfig, WidgetPrompt } from './protocol.js';
import { DEFAULT_SETTINGS } from './default-settings.js';

/** The parts of a chatbot and its prompts read here (structural: the browser's preview imports this file). */
interface ChatbotPart {
  id: string;
  title: string;
  settings: Record<string, unknown>;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
/**
 * A text a new chatbot starts with (English, stored so the v2 API shows it): null while untouched,
 * so the widget writes its own text in the visitor's language; '' when the owner cleared it.
 */
const ownText = (
  s: Record<string, unknown>,
  key: 'welcomeMessage' | 'placeholderText' | 'watermarkText',
): string | null => {
  const v = s[key];
  if (v === undefined || v === DEFAULT_SETTINGS[key]) return null;
  return typeof v === 'string' ? v : '';
};
const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const bool = (v: unknown): boolean => v === true;
const oneOf = <T extends string>(v: unknown, members: readonly T[], fallback: T): T =>
  members.includes(v as T) ? (v as T) : fallback;

type Prompt = { id: string; title: string; description: string; link: string | null; isEscalationPrompt?: boolean };

const prompt = (p: Prompt, followUp: boolean): WidgetPrompt => ({
  id: p.id,
  title: p.title,
  description: p.description,
  link: p.link,
  ...(followUp && { isEscalationPrompt: p.isEscalationPrompt === true }),
});

export function widgetConfig(chatbot: ChatbotPart, starters: Prompt[], followUps: Prompt[]): WidgetConfig {
  const s = chatbot.settings;
  const localization = (s.localization && typeof s.localization === 'object' ? s.localization : null) as Record<
    string,
    unknown
  > | null;
  const botName = str((localization?.chatMessage as Record<string, unknown> | undefined)?.botName);
  const autoOpen = ['ALWAYS_OPEN_WITH_DELAY', 'DONT_OPEN'] as const;
  const collectData = (s.collectUserData ?? { name: true, phone: false }) as { name?: unknown; phone?: unknown };
  return {
    chatbotId: chatbot.id,
    name: botName ?? chatbot.title,
    locale: str(localization?.locale) ?? 'en',
    appearance: {
      tooltip: str(s.tooltip),
      hideTooltip: bool(s.hideTooltip),
      welcomeMessage: ownText(s, 'welcomeMessage'),
      placeholderText: ownText(s, 'placeholderText'),
      brandColor: str(s.brandColor) ?? '#1f6feb',
      brandTextColor: str(s.brandTextColor) ?? '#ffffff',
      rtl: bool(s.rtl),
      autoOpenChatWindowInDesktop: oneOf(s.autoOpenChatWindowInDesktop, autoOpen, 'DONT_OPEN'),
      autoOpenChatWindowInMobile: oneOf(s.autoOpenChatWindowInMobile, autoOpen, 'DONT_OPEN'),
      autoOpenChatWindowDelayInDesktop: num(s.autoOpenChatWindowDelayInDesktop, 3000),
      autoOpenChatWindowDelayInMobile: num(s.autoOpenChatWindowDelayInMobile, 3000),
      distanceFromBottom: num(s.distanceFromBottom, 20),
      horizontalDistance: num(s.horizontalDistance, 20),
      fontSize: num(s.fontSize, 15),
      iconSize: oneOf(s.iconSize, ['SMALL', 'MEDIUM', 'LARGE'] as const, 'MEDIUM'),
      iconPosition: oneOf(s.iconPosition, ['BOTTOM_RIGHT', 'BOTTOM_LEFT'] as const, 'BOTTOM_RIGHT'),
      height: typeof s.height === 'number' ? s.height : null,
      maxWidth: num(s.maxWidth, 400),
      ctaText: str(s.ctaText),
      ctaLink: str(s.ctaLink),
    },
    icons: {
      icon: str(s.iconSrcId),
      person: str(s.personIconSrcId),
      agent: str(s.agentIconSrcId),
      bubble: str(s.bubbleIconSrcId),
    },
    watermark: {
      hide: bool(s.hideWatermark),
      text: ownText(s, 'watermarkText'),
      link: str(s.watermarkLink),
      iconUrl: str(s.watermarkIconSrcId),
    },
    localization,
    chat: {
      mode: oneOf(s.mode, ['AI_WITH_HUMAN_ESCALATION', 'AI_ONLY', 'HUMAN_ONLY'] as const, 'AI_WITH_HUMAN_ESCALATION'),
      hideSources: bool(s.hideSources),
      hideFeedbackButtons: bool(s.hideFeedbackButtons),
      disableSmartFollowUpPrompts: bool(s.disableSmartFollowUpPrompts),
      smartFollowUpPromptsCount: num(s.smartFollowUpPromptsCount, 3),
    },
    userData: {
      collectUserDetails: oneOf(
        s.collectUserDetails,
        ['DONT_COLLECT', 'BEFORE_CONVERSATION', 'DURING_CONVERSATION', 'ON_ESCALATION'] as const,
        'DONT_COLLECT',
      ),
      collectUserData: { name: collectData.name !== false, phone: collectData.phone === true },
      leadFields: (Array.isArray(s.leadFields) ? s.leadFields : []) as WidgetConfig['userData']['leadFields'],
    },
    starters: starters.map((p) => prompt(p, false)),
    followUps: followUps.map((p) => prompt(p, true)),
  };
}
