/**
 * Chatbot settings (spec 2.4 ChatbotSettings + ChatbotLocalizationSettings) with the ranges of
 * section 8, grouped into the six sections of `PATCH /chatbots/{id}/settings/{section}`.
 * The enumeration members the spec leaves open are defined here and documented in the OpenAPI.
 */
import Type, { type Static, type TSchema } from 'typebox';

export const GPT_MODELS = ['gpt-4.1', 'gpt-4.1-mini'] as const;
/** STRICT 0.0, BALANCED 0.5, CREATIVE 1.0; CUSTOM uses the `temperature` setting. */
export const CREATIVITY = ['STRICT', 'BALANCED', 'CREATIVE', 'CUSTOM'] as const;
/**
 * AI_WITH_HUMAN_ESCALATION: the AI answers, visitors can ask for a person (default).
 * AI_ONLY: the AI answers, no escalation is offered. HUMAN_ONLY: new conversations start in
 * AGENT mode and only the team answers.
 */
export const CHAT_MODES = ['AI_WITH_HUMAN_ESCALATION', 'AI_ONLY', 'HUMAN_ONLY'] as const;
/**
 * DONT_COLLECT: never ask. BEFORE_CONVERSATION: the widget asks before the first message.
 * DURING_CONVERSATION: asked after the first answer, skippable. ON_ESCALATION: asked when the
 * visitor asks for a person.
 */
export const COLLECT_USER_DETAILS = [
  'DONT_COLLECT',
  'BEFORE_CONVERSATION',
  'DURING_CONVERSATION',
  'ON_ESCALATION',
] as const;
export const ICON_SIZES = ['SMALL', 'MEDIUM', 'LARGE'] as const;
export const ICON_POSITIONS = ['BOTTOM_RIGHT', 'BOTTOM_LEFT'] as const;
export const AUTO_OPEN = ['ALWAYS_OPEN_WITH_DELAY', 'DONT_OPEN'] as const;
/** Locales the widget ships strings for; null means English (en-US). */
export const LOCALES = ['en', 'ar', 'da', 'de', 'es', 'fr', 'he', 'it', 'ja', 'nl', 'pl', 'pt', 'sv'] as const;
/** The icon kinds of `POST /chatbots/{id}/icons` and the setting each one fills. */
export const ICON_TYPES = {
  icon: 'iconSrcId',
  person: 'personIconSrcId',
  agent: 'agentIconSrcId',
  watermark: 'watermarkIconSrcId',
  bubble: 'bubbleIconSrcId',
} as const;
export type IconType = keyof typeof ICON_TYPES;
/** Input kinds of the custom lead fields (`leadFields`); each validates its value on capture. */
export const LEAD_FIELD_TYPES = ['text', 'email', 'phone', 'number', 'select'] as const;
/** The two webhook body shapes of spec section 6. */
export const WEBHOOK_PAYLOAD_VARIANTS = ['A', 'B'] as const;
/** Most custom lead fields a chatbot may define. */
export const MAX_LEAD_FIELDS = 20;

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const text = (maxLength: number, description?: string) =>
  nullable(Type.String({ maxLength, ...(description ? { description } : {}) }));
const flag = (description?: string) => nullable(Type.Boolean(description ? { description } : {}));
const pixels = (max: number, description: string) => nullable(Type.Integer({ minimum: 0, maximum: max, description }));
const oneOf = <T extends readonly string[]>(members: T, description: string) =>
  nullable(Type.Enum([...members] as unknown as string[], { description }) as unknown as TSchema);
const color = () =>
  nullable(Type.String({ pattern: '^#(?:[0-9a-fA-F]{3}){1,2}$', description: 'CSS hex colour, e.g. #1f6feb' }));
const httpUrl = (description: string) => nullable(Type.String({ maxLength: 2048, pattern: '^https?://', description }));
const httpsUrl = (description: string) => nullable(Type.String({ maxLength: 2048, pattern: '^https://', description }));
const strings = <K extends string>(keys: readonly K[]) =>
  nullable(
    Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Optional(text(500))])) as unknown as Record<K, TSchema>, {
      additionalProperties: false,
    }),
  );

/** Each section's fields. Every field is optional in a PATCH; null clears a nullable field. */
export const SECTION_FIELDS = {
  general: {
    title: Type.String({ minLength: 1, maxLength: 200, description: 'The chatbot name' }),
    description: Type.String({ maxLength: 2000 }),
    gptModel: oneOf(GPT_MODELS, 'Public model name; the server maps it to a configured provider model'),
    creativity: oneOf(CREATIVITY, 'STRICT 0.0, BALANCED 0.5, CREATIVE 1.0; CUSTOM uses temperature'),
    temperature: nullable(
      Type.Number({ minimum: 0, maximum: 2, multipleOf: 0.01, description: 'Used only when creativity is CUSTOM' }),
    ),
    topK: nullable(Type.Integer({ minimum: 1, maximum: 5, description: 'Relevant chunks fetched per answer' })),
    historyCount: nullable(
      Type.Integer({ minimum: 0, maximum: 50, description: 'History messages considered when answering' }),
    ),
    systemPrompt: text(8000, 'Tone and instructions for the language model'),
    userPrompt: text(8000, 'Template wrapped around the visitor question'),
    extraData: text(8000),
    metadata: nullable(
      Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), { description: 'Free key-value pairs' }),
    ),
    allowedDomains: Type.Array(
      Type.String({
        maxLength: 260,
        pattern: '^(\\*\\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$',
      }),
      {
        maxItems: 100,
        uniqueItems: true,
        description:
          'Web pages that may embed the widget and use its public routes and socket: `example.com`, `localhost:5173` (that port only) or `*.example.com` (its subdomains). Empty: any page. Not nullable; [] for any',
      },
    ),
  },
  'chat-mode': {
    mode: oneOf(CHAT_MODES, 'Who answers visitors'),
    disableSmartFollowUpPrompts: flag(),
    smartFollowUpPromptsCount: nullable(Type.Integer({ minimum: 1, maximum: 5, description: 'Default 3' })),
    hideSources: flag(),
    hideFeedbackButtons: flag(),
  },
  localization: {
    localization: nullable(
      Type.Object(
        {
          locale: Type.Optional(oneOf(LOCALES, 'Language of the text the widget writes itself; null means en-US')),
          learnMore: Type.Optional(text(200)),
          chatHome: Type.Optional(strings(['home', 'addDetails', 'startConversation', 'starting'])),
          chatMessages: Type.Optional(
            strings([
              'messages',
              'noMessages',
              'loginToSeeHistory',
              'historyShowsUpHere',
              'verifyEmail',
              'startConversation',
              'starting',
            ]),
          ),
          chatMessage: Type.Optional(
            strings([
              'botName',
              'yourName',
              'agentName',
              'escalationHeading',
              'escalationSubHeading',
              'yesContinue',
              'cancel',
              'conversationEscalated',
            ]),
          ),
          chatAccount: Type.Optional(
            strings([
              'account',
              'verifyEmail',
              'loginToSeeHistory',
              'emailLabel',
              'nameLabel',
              'phoneLabel',
              'submit',
              'sendingOtp',
              'verifyOtp',
              'sentOtpToEmail',
              'otp',
              'verifyAndContinue',
              'notReceivedOtpYet',
              'resend',
              'editDetails',
              'resetting',
              'verifying',
              'logout',
              'loggingOut',
              'verified',
              'edit',
              'update',
              'updating',
            ]),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  'user-data': {
    collectUserDetails: oneOf(COLLECT_USER_DETAILS, 'When the widget asks visitors for contact details'),
    collectUserData: nullable(
      Type.Object(
        { name: Type.Boolean(), phone: Type.Boolean() },
        { additionalProperties: false, description: 'Which visitor data to collect besides e-mail' },
      ),
    ),
    disableLeadNotifications: flag('Disables e-mail notices of new leads'),
    leadFields: Type.Array(
      Type.Object(
        {
          key: Type.String({
            pattern: '^(?!__proto__$)[a-z0-9_]{1,40}$',
            description:
              'a-z, 0-9 and _ (1 to 40); stored under this key in lead.customFields; unique within the chatbot',
          }),
          label: Type.String({ minLength: 1, maxLength: 100, description: 'What the widget shows' }),
          type: Type.Enum([...LEAD_FIELD_TYPES], {
            description: 'text, email, phone, number, or select (one of `options`)',
          }),
          required: Type.Boolean(),
          options: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
              minItems: 1,
              maxItems: 50,
              uniqueItems: true,
              description: 'The choices of a select field',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      {
        maxItems: MAX_LEAD_FIELDS,
        description: 'Custom fields collected with a lead, besides name, e-mail and phone. Not nullable; [] for none',
      },
    ),
  },
  appearance: {
    tooltip: text(300, 'Shown above the icon; when unset the welcome message is used'),
    welcomeMessage: text(2000),
    placeholderText: text(200),
    brandColor: color(),
    brandTextColor: color(),
    hideTooltip: flag(),
    rtl: flag(),
    hideWatermark: flag('Needs a plan with branding removal'),
    watermarkText: text(100),
    watermarkLink: httpUrl('Link of the watermark'),
    autoOpenChatWindowInDesktop: oneOf(AUTO_OPEN, 'Auto-open on desktop'),
    autoOpenChatWindowInMobile: oneOf(AUTO_OPEN, 'Auto-open on mobile'),
    autoOpenChatWindowDelayInDesktop: pixels(600_000, 'Milliseconds before opening, with ALWAYS_OPEN_WITH_DELAY'),
    autoOpenChatWindowDelayInMobile: pixels(600_000, 'Milliseconds before opening, with ALWAYS_OPEN_WITH_DELAY'),
    distanceFromBottom: pixels(2000, 'Pixels'),
    horizontalDistance: pixels(2000, 'Pixels'),
    fontSize: nullable(Type.Integer({ minimum: 8, maximum: 40, description: 'Pixels' })),
    iconSize: oneOf(ICON_SIZES, 'ChatbotIconSize'),
    iconPosition: oneOf(ICON_POSITIONS, 'ChatbotIconPosition'),
    height: nullable(
      Type.Number({
        minimum: 200,
        maximum: 2000,
        description: 'Pixels (fractions allowed, as spec 2.4 types it a number)',
      }),
    ),
    maxWidth: Type.Number({ minimum: 200, maximum: 2000, description: 'Pixels (fractions allowed); not nullable' }),
    ctaText: text(100),
    ctaLink: httpUrl('Call-to-action link'),
  },
  webhooks: {
    webhookUrl: httpsUrl('Global webhook target when a thread has none of its own'),
    webhookToken: text(500, 'Sent as X-WEBHOOK-TOKEN with calls to webhookUrl'),
    messagesWebhookUrl: httpsUrl('Target of Messages events'),
    messagesWebhookToken: text(500),
    escalationWebhookUrl: httpsUrl('Target of Escalation events'),
    escalationWebhookToken: text(500),
    leadsWebhookUrl: httpsUrl('Target of Leads events'),
    leadsWebhookToken: text(500),
    webhookPayloadVariant: oneOf(
      WEBHOOK_PAYLOAD_VARIANTS,
      'Body shape of section 6: A ({event, data}, retries after 1 s, 5 s, 25 s) or B (flat, retries after 1 s, 5 s, 30 s, 5 min); null means A',
    ),
  },
} as const;

export type SettingsSection = keyof typeof SECTION_FIELDS;
export const SETTINGS_SECTIONS = Object.keys(SECTION_FIELDS) as SettingsSection[];

/** Fields set only by their own routes (icons, instructions and personas /use), read-only in settings PATCHes. */
export const READ_ONLY_SETTINGS = {
  iconSrcId: text(2048),
  personIconSrcId: text(2048),
  agentIconSrcId: text(2048),
  watermarkIconSrcId: text(2048),
  bubbleIconSrcId: text(2048),
  promptId: text(64),
  personaId: text(64),
};

const patchObject = (fields: Record<string, TSchema>, title: string) =>
  Type.Object(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Type.Optional(v)])), {
    additionalProperties: false,
    minProperties: 1,
    title,
  });

/** Body schema of `PATCH /chatbots/{id}/settings/{section}` (named for the OpenAPI document, e.g. ChatModeSettingsPatch). */
export const sectionPatchSchema = (section: SettingsSection) =>
  patchObject(
    SECTION_FIELDS[section] as Record<string, TSchema>,
    `${section
      .split('-')
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join('')}SettingsPatch`,
  );

/** Body of `PATCH /chatbots/{id}/settings`: several sections at once, keyed by section name. */
export const settingsPatchSchema = Type.Object(
  Object.fromEntries(SETTINGS_SECTIONS.map((s) => [s, Type.Optional(sectionPatchSchema(s))])),
  { additionalProperties: false, minProperties: 1, title: 'SettingsPatch' },
);

/** Credentials among the settings: encrypted at rest, shown masked, and only with `settings:read`. */
export const TOKEN_SETTINGS = [
  'webhookToken',
  'messagesWebhookToken',
  'escalationWebhookToken',
  'leadsWebhookToken',
] as const;
/** The owner's instructions to the model: shown only with `settings:read`. */
export const INSTRUCTION_SETTINGS = ['systemPrompt', 'userPrompt'] as const;
const PRIVATE_SETTINGS: readonly string[] = [...TOKEN_SETTINGS, ...INSTRUCTION_SETTINGS];

/** Every settings field but title and description, each as `GET /chatbots/{id}/settings` returns it. */
export const SETTINGS_FIELDS: Record<string, TSchema> = {
  ...Object.fromEntries(
    SETTINGS_SECTIONS.flatMap((s) => Object.entries(SECTION_FIELDS[s])).filter(
      ([k]) => k !== 'title' && k !== 'description',
    ),
  ),
  ...READ_ONLY_SETTINGS,
};

/**
 * The full settings object as `GET /chatbots/{id}` returns it (every field, null when unset); the
 * private fields only to a token with `settings:read`.
 */
export const chatbotSettingsSchema = Type.Object(
  Object.fromEntries(
    Object.entries(SETTINGS_FIELDS).map(([k, v]) => [k, PRIVATE_SETTINGS.includes(k) ? Type.Optional(v) : v]),
  ),
  {
    additionalProperties: false,
    title: 'Settings',
    description: `Every setting, null when unset. ${PRIVATE_SETTINGS.join(', ')} are present only for a token with settings:read (the tokens masked).`,
  },
);

export type ChatbotSettings = Static<typeof chatbotSettingsSchema>;

/** The values a new chatbot starts with (their own module: the browser's preview reads them without TypeBox). */
export { DEFAULT_SETTINGS } from './default-settings.js';
