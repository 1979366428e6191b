/**
 * Every chatbot setting (spec 2.4, shared/settings.ts) as the page shows it: the group a site
 * owner looks for it in, its control, and the settings section its PATCH goes to. Option lists
 * mirror the enumerations of shared/settings.ts (that module carries TypeBox, too heavy for this
 * chunk); test/server/console-appearance-fields.test.ts checks both lists agree.
 */
export type Section = 'general' | 'chat-mode' | 'localization' | 'user-data' | 'appearance' | 'webhooks';

export type GroupId = 'look' | 'messages' | 'behaviour' | 'leads' | 'languages' | 'security' | 'identity' | 'webhooks';

export type Unit = 'px' | 's' | 'messages' | 'passages' | 'suggestions';

export type Control =
  | { kind: 'text'; max: number; multiline?: boolean }
  | { kind: 'url'; scheme: 'http' | 'https' }
  | { kind: 'color' }
  | { kind: 'toggle'; invert?: boolean }
  | { kind: 'select'; options: readonly string[]; labels: string; nullable?: boolean }
  | { kind: 'range'; min: number; max: number; step: number; unit?: Unit; scale?: number }
  | { kind: 'number'; min: number; max: number; unit: Unit }
  | { kind: 'json' }
  | { kind: 'secret' };

export interface FieldDef {
  key: string;
  section: Section;
  control: Control;
  /** Shown only when this holds for the settings being edited. */
  when?: (s: Record<string, unknown>) => boolean;
}

export const GPT_MODELS = ['gpt-4.1', 'gpt-4.1-mini'] as const;
export const CREATIVITY = ['STRICT', 'BALANCED', 'CREATIVE', 'CUSTOM'] as const;
export const CHAT_MODES = ['AI_WITH_HUMAN_ESCALATION', 'AI_ONLY', 'HUMAN_ONLY'] as const;
export const COLLECT_USER_DETAILS = [
  'DONT_COLLECT',
  'BEFORE_CONVERSATION',
  'DURING_CONVERSATION',
  'ON_ESCALATION',
] as const;
export const ICON_SIZES = ['SMALL', 'MEDIUM', 'LARGE'] as const;
export const ICON_POSITIONS = ['BOTTOM_RIGHT', 'BOTTOM_LEFT'] as const;
export const AUTO_OPEN = ['DONT_OPEN', 'ALWAYS_OPEN_WITH_DELAY'] as const;
export const LOCALES = ['en', 'ar', 'da', 'de', 'es', 'fr', 'he', 'it', 'ja', 'nl', 'pl', 'pt', 'sv'] as const;
export const LEAD_FIELD_TYPES = ['text', 'email', 'phone', 'number', 'select'] as const;
export const WEBHOOK_PAYLOAD_VARIANTS = ['A', 'B'] as const;
/** The picture kinds of POST /chatbots/{id}/icons and the setting each fills. */
export const ICON_TYPES = {
  icon: 'iconSrcId',
  bubble: 'bubbleIconSrcId',
  person: 'personIconSrcId',
  agent: 'agentIconSrcId',
  watermark: 'watermarkIconSrcId',
} as const;

const text = (max: number, multiline = false): Control => ({ kind: 'text', max, multiline });
const px = (min: number, max: number, step = 1): Control => ({ kind: 'range', min, max, step, unit: 'px' });
const showsWhen = (key: string, value: unknown) => (s: Record<string, unknown>) => s[key] === value;
const notSet = (key: string) => (s: Record<string, unknown>) => s[key] !== true;

/** The fields of each group, in the order shown. Lists, pictures and secrets have editors of their own. */
export const GROUPS: Record<GroupId, FieldDef[]> = {
  look: [
    { key: 'title', section: 'general', control: text(200) },
    { key: 'brandColor', section: 'appearance', control: { kind: 'color' } },
    { key: 'brandTextColor', section: 'appearance', control: { kind: 'color' } },
    { key: 'iconSize', section: 'appearance', control: { kind: 'select', options: ICON_SIZES, labels: 'iconSize' } },
    {
      key: 'iconPosition',
      section: 'appearance',
      control: { kind: 'select', options: ICON_POSITIONS, labels: 'iconPosition' },
    },
    { key: 'distanceFromBottom', section: 'appearance', control: px(0, 200) },
    { key: 'horizontalDistance', section: 'appearance', control: px(0, 200) },
    { key: 'fontSize', section: 'appearance', control: px(12, 24) },
    { key: 'maxWidth', section: 'appearance', control: px(300, 800, 10) },
    { key: 'height', section: 'appearance', control: { kind: 'number', min: 200, max: 2000, unit: 'px' } },
    { key: 'rtl', section: 'appearance', control: { kind: 'toggle' } },
    { key: 'hideWatermark', section: 'appearance', control: { kind: 'toggle', invert: true } },
    { key: 'watermarkText', section: 'appearance', control: text(100), when: notSet('hideWatermark') },
    {
      key: 'watermarkLink',
      section: 'appearance',
      control: { kind: 'url', scheme: 'http' },
      when: notSet('hideWatermark'),
    },
  ],
  messages: [
    { key: 'welcomeMessage', section: 'appearance', control: text(2000, true) },
    { key: 'hideTooltip', section: 'appearance', control: { kind: 'toggle', invert: true } },
    { key: 'tooltip', section: 'appearance', control: text(300), when: notSet('hideTooltip') },
    { key: 'placeholderText', section: 'appearance', control: text(200) },
    { key: 'ctaText', section: 'appearance', control: text(100) },
    { key: 'ctaLink', section: 'appearance', control: { kind: 'url', scheme: 'http' } },
    { key: 'hideSources', section: 'chat-mode', control: { kind: 'toggle', invert: true } },
    { key: 'hideFeedbackButtons', section: 'chat-mode', control: { kind: 'toggle', invert: true } },
    { key: 'disableSmartFollowUpPrompts', section: 'chat-mode', control: { kind: 'toggle', invert: true } },
    {
      key: 'smartFollowUpPromptsCount',
      section: 'chat-mode',
      control: { kind: 'range', min: 1, max: 5, step: 1, unit: 'suggestions' },
      when: notSet('disableSmartFollowUpPrompts'),
    },
  ],
  behaviour: [
    { key: 'mode', section: 'chat-mode', control: { kind: 'select', options: CHAT_MODES, labels: 'mode' } },
    {
      key: 'autoOpenChatWindowInDesktop',
      section: 'appearance',
      control: { kind: 'select', options: AUTO_OPEN, labels: 'autoOpen' },
    },
    {
      key: 'autoOpenChatWindowDelayInDesktop',
      section: 'appearance',
      control: { kind: 'range', min: 0, max: 60, step: 1, unit: 's', scale: 1000 },
      when: showsWhen('autoOpenChatWindowInDesktop', 'ALWAYS_OPEN_WITH_DELAY'),
    },
    {
      key: 'autoOpenChatWindowInMobile',
      section: 'appearance',
      control: { kind: 'select', options: AUTO_OPEN, labels: 'autoOpen' },
    },
    {
      key: 'autoOpenChatWindowDelayInMobile',
      section: 'appearance',
      control: { kind: 'range', min: 0, max: 60, step: 1, unit: 's', scale: 1000 },
      when: showsWhen('autoOpenChatWindowInMobile', 'ALWAYS_OPEN_WITH_DELAY'),
    },
    { key: 'gptModel', section: 'general', control: { kind: 'select', options: GPT_MODELS, labels: 'gptModel' } },
    {
      key: 'creativity',
      section: 'general',
      control: { kind: 'select', options: CREATIVITY, labels: 'creativity' },
    },
    {
      key: 'temperature',
      section: 'general',
      control: { kind: 'range', min: 0, max: 2, step: 0.01 },
      when: showsWhen('creativity', 'CUSTOM'),
    },
    { key: 'topK', section: 'general', control: { kind: 'range', min: 1, max: 5, step: 1, unit: 'passages' } },
    {
      key: 'historyCount',
      section: 'general',
      control: { kind: 'range', min: 0, max: 50, step: 1, unit: 'messages' },
    },
    { key: 'systemPrompt', section: 'general', control: text(8000, true) },
    { key: 'userPrompt', section: 'general', control: text(8000, true) },
    { key: 'description', section: 'general', control: text(2000, true) },
    { key: 'extraData', section: 'general', control: text(8000, true) },
    { key: 'metadata', section: 'general', control: { kind: 'json' } },
  ],
  leads: [
    {
      key: 'collectUserDetails',
      section: 'user-data',
      control: { kind: 'select', options: COLLECT_USER_DETAILS, labels: 'collectUserDetails' },
    },
    { key: 'disableLeadNotifications', section: 'user-data', control: { kind: 'toggle', invert: true } },
  ],
  languages: [],
  security: [],
  identity: [],
  webhooks: [
    {
      key: 'webhookPayloadVariant',
      section: 'webhooks',
      control: { kind: 'select', options: WEBHOOK_PAYLOAD_VARIANTS, labels: 'webhookPayloadVariant' },
    },
    ...(['webhook', 'messagesWebhook', 'escalationWebhook', 'leadsWebhook'] as const).flatMap((k) => [
      { key: `${k}Url`, section: 'webhooks' as const, control: { kind: 'url' as const, scheme: 'https' as const } },
      { key: `${k}Token`, section: 'webhooks' as const, control: { kind: 'secret' as const } },
    ]),
  ],
};

export const GROUP_IDS = Object.keys(GROUPS) as GroupId[];

/** Settings edited by their own editors (lists and objects), with the section each belongs to. */
export const SPECIAL_FIELDS: Record<string, Section> = {
  collectUserData: 'user-data',
  leadFields: 'user-data',
  localization: 'localization',
  allowedDomains: 'general',
};

/** The section of every editable setting. */
export const SECTION_OF: Record<string, Section> = {
  ...Object.fromEntries(Object.values(GROUPS).flatMap((fields) => fields.map((f) => [f.key, f.section]))),
  ...SPECIAL_FIELDS,
};

/** Written only by their own routes (pictures, instructions and personas "use"). */
export const READ_ONLY = [...Object.values(ICON_TYPES), 'promptId', 'personaId'];
