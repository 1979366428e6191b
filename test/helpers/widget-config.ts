/** A complete public widget config (what GET /api/widget/{id}/config serves), for widget tests. */
import type { WidgetConfig } from '../../shared/protocol.js';

type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K];
};

export function widgetConfig(overrides: DeepPartial<WidgetConfig> = {}): WidgetConfig {
  const base: WidgetConfig = {
    chatbotId: 'bot_1',
    name: 'Docs assistant',
    locale: 'en',
    appearance: {
      tooltip: null,
      hideTooltip: false,
      // As the server sends a chatbot's untouched defaults: the widget writes its own text.
      welcomeMessage: null,
      placeholderText: null,
      brandColor: '#1f6feb',
      brandTextColor: '#ffffff',
      rtl: false,
      autoOpenChatWindowInDesktop: 'DONT_OPEN',
      autoOpenChatWindowInMobile: 'DONT_OPEN',
      autoOpenChatWindowDelayInDesktop: 3000,
      autoOpenChatWindowDelayInMobile: 3000,
      distanceFromBottom: 20,
      horizontalDistance: 20,
      fontSize: 15,
      iconSize: 'MEDIUM',
      iconPosition: 'BOTTOM_RIGHT',
      height: null,
      maxWidth: 400,
      ctaText: null,
      ctaLink: null,
    },
    icons: { icon: null, person: null, agent: null, bubble: null },
    watermark: { hide: false, text: null, link: 'https://parley.example/', iconUrl: null },
    localization: null,
    chat: {
      mode: 'AI_WITH_HUMAN_ESCALATION',
      hideSources: false,
      hideFeedbackButtons: false,
      disableSmartFollowUpPrompts: false,
      smartFollowUpPromptsCount: 3,
    },
    userData: { collectUserDetails: 'DONT_COLLECT', collectUserData: { name: true, phone: false }, leadFields: [] },
    starters: [
      { id: 's1', title: 'Pricing', description: 'How much does it cost?', link: null },
      { id: 's2', title: 'Docs', description: '', link: 'https://docs.example/' },
    ],
    followUps: [],
  };
  const merged = { ...base } as Record<string, unknown>;
  for (const [k, v] of Object.entries(overrides)) {
    const b = (base as unknown as Record<string, unknown>)[k];
    merged[k] = v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' ? { ...b, ...v } : v;
  }
  return merged as unknown as WidgetConfig;
}
