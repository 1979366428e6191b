/**
 * The legacy v0 shapes of spec 2.4 (Chatbot, ChatbotSettings, QuickPrompt, FollowUpPrompt,
 * ChatbotPrompt, ChatbotPersona, Thread) and the one mapping of each from its v2 view. Nothing
 * here decides anything: the views come from the same services as v2.
 */
import Type, { type Static, type TSchema } from 'typebox';
import type { Thread } from '../../../shared/conversations.js';
import { chatbotSettingsSchema } from '../../../shared/settings.js';
import type { ChatbotView } from '../../domain/chatbots.service.js';
import { ChatUserSchema, MessageSchema, ThreadSchema } from '../v2/conversation-schemas.js';
import { nullable } from '../v2/resource-schemas.js';

/** The ChatbotSettings fields of spec 2.4, in its order; v2-only settings are not part of v0. */
export const LEGACY_SETTINGS = [
  'tooltip',
  'welcomeMessage',
  'placeholderText',
  'brandColor',
  'brandTextColor',
  'hideSources',
  'hideTooltip',
  'hideFeedbackButtons',
  'rtl',
  'hideWatermark',
  'watermarkText',
  'watermarkLink',
  'autoOpenChatWindowInDesktop',
  'autoOpenChatWindowInMobile',
  'autoOpenChatWindowDelayInDesktop',
  'autoOpenChatWindowDelayInMobile',
  'distanceFromBottom',
  'horizontalDistance',
  'fontSize',
  'iconSize',
  'iconPosition',
  'height',
  'maxWidth',
  'ctaText',
  'ctaLink',
  'localization',
  'iconSrcId',
  'personIconSrcId',
  'agentIconSrcId',
  'watermarkIconSrcId',
  'bubbleIconSrcId',
  'systemPrompt',
  'userPrompt',
  'promptId',
  'disableSmartFollowUpPrompts',
  'smartFollowUpPromptsCount',
  'disableLeadNotifications',
  'historyCount',
  'temperature',
  'topK',
  'gptModel',
  'creativity',
  'mode',
  'collectUserDetails',
  'collectUserData',
  'webhookUrl',
  'webhookToken',
  'extraData',
  'metadata',
] as const;

const settingsProperties = chatbotSettingsSchema.properties as Record<string, TSchema>;
export const LegacySettings = Type.Object(Object.fromEntries(LEGACY_SETTINGS.map((k) => [k, settingsProperties[k]])), {
  description:
    'ChatbotSettings (spec 2.4): the same values as the v2 settings, v0 fields only. webhookToken is masked (**** and its last 4).',
});

export const QuickPrompt = Type.Object({
  id: Type.String(),
  title: Type.String({ description: 'Button text' }),
  link: nullable(Type.String({ description: 'When set, a click opens the link instead of sending a message' })),
  description: Type.String({ description: 'The message sent on click' }),
});

export const FollowUpPrompt = Type.Object({
  ...QuickPrompt.properties,
  isEscalationPrompt: Type.Boolean({ description: 'Clicking it asks for a person; at most one per chatbot' }),
});

export const ChatbotPrompt = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  instructions: Type.String({ description: 'Given to the language model' }),
  temperature: nullable(
    Type.Number({ description: '0 focused to 1 creative, step 0.01; null: the chatbot creativity setting decides' }),
  ),
});

export const ChatbotPersona = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  instructions: Type.String({ description: 'Who the assistant speaks as; given to the language model' }),
});

export const LegacyChatbot = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  createdById: Type.String({ description: 'The creating user' }),
  createdByEmail: nullable(Type.String({ description: "The creating user's e-mail" })),
  customContent: nullable(
    Type.String({
      description:
        'The texts added through POST .../custom-content whose knowledge documents (v2 documents, kind text) still exist, oldest first, separated by a blank line; null when there are none. Deleting the document in v2 removes its text here.',
    }),
  ),
  suggestions: Type.Array(QuickPrompt, { description: 'Conversation starters (v2 starters), by position' }),
  prompts: Type.Array(ChatbotPrompt, { description: 'Prompts (v2 instructions); settings.promptId is the active one' }),
  nextSuggestions: Type.Array(FollowUpPrompt, { description: 'Follow-up prompts (v2 followups), by position' }),
  settings: LegacySettings,
});

const pick = (schema: typeof ThreadSchema, keys: (keyof typeof ThreadSchema.properties)[]) =>
  Object.fromEntries(keys.map((k) => [k, schema.properties[k]]));

const THIN_THREAD_KEYS = [
  'threadId',
  'chatbotId',
  'chatUserId',
  'mode',
  'startedAt',
  'updatedAt',
  'endedAt',
  'escalated',
  'webhookUrl',
  'webhookToken',
  'totalMessagesRead',
] as const;

/** A thread in a list: the Thread fields without its messages (spec 2.4 shows only ThinThread's threadId). */
export const ThinThread = Type.Object({
  ...pick(ThreadSchema, [...THIN_THREAD_KEYS]),
  chatUser: nullable(ChatUserSchema),
});

export const LegacyThread = Type.Object({
  ...ThinThread.properties,
  messages: Type.Array(MessageSchema, {
    description: 'Every message, oldest first (ThreadMessage: the v2 message shape)',
  }),
});

// ---- mappings from the v2 views ----------------------------------------------------------------

type Item = { id: string; title: string; description: string; link?: string | null };
export const quickPrompt = (s: Item): Static<typeof QuickPrompt> => ({
  id: s.id,
  title: s.title,
  link: s.link ?? null,
  description: s.description,
});
export const followUpPrompt = (f: Item & { isEscalationPrompt: boolean }): Static<typeof FollowUpPrompt> => ({
  ...quickPrompt(f),
  isEscalationPrompt: f.isEscalationPrompt,
});
export const chatbotPrompt = (i: {
  id: string;
  title: string;
  description: string;
  instructions: string;
  temperature: number | null;
}) => ({
  id: i.id,
  title: i.title,
  description: i.description,
  instructions: i.instructions,
  temperature: i.temperature,
});
export const chatbotPersona = (p: { id: string; title: string; description: string; instructions: string }) => ({
  id: p.id,
  title: p.title,
  description: p.description,
  instructions: p.instructions,
});

export function legacySettings(settings: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(LEGACY_SETTINGS.filter((k) => k in settings).map((k) => [k, settings[k]]));
}

export function legacyChatbot(
  view: ChatbotView,
  lists: {
    starters: Item[];
    instructions: Parameters<typeof chatbotPrompt>[0][];
    followups: (Item & { isEscalationPrompt: boolean })[];
    customContent: string | null;
  },
) {
  return {
    id: view.id,
    title: view.title,
    description: view.description,
    createdById: view.createdById,
    createdByEmail: view.createdByEmail,
    customContent: lists.customContent,
    suggestions: lists.starters.map(quickPrompt),
    prompts: lists.instructions.map(chatbotPrompt),
    nextSuggestions: lists.followups.map(followUpPrompt),
    settings: legacySettings(view.settings),
  };
}

export function thinThread(t: Thread) {
  return { ...Object.fromEntries(THIN_THREAD_KEYS.map((k) => [k, t[k]])), chatUser: t.chatUser };
}
