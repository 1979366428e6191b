/**
 * Where an event goes: the thread's own pair first, then the event's URL (Messages, Escalation,
 * Leads), then the chatbot's global pair; the first URL set wins, with the token set beside it.
 */
import type { PayloadVariant, TargetSource, WebhookEvent } from './ports.js';

export const EVENT_SETTINGS: Record<WebhookEvent, { url: string; token: string }> = {
  message: { url: 'messagesWebhookUrl', token: 'messagesWebhookToken' },
  escalation: { url: 'escalationWebhookUrl', token: 'escalationWebhookToken' },
  lead: { url: 'leadsWebhookUrl', token: 'leadsWebhookToken' },
};

export interface Target {
  url: string;
  token: string | null;
  source: TargetSource;
}

/**
 * A webhook token as stored (settings or a thread) -> the value to send. The one place stored
 * tokens are read, so encryption at rest changes only this function.
 */
export function storedToken(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

const url = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function resolveTarget(
  event: WebhookEvent,
  settings: Record<string, unknown>,
  thread: { webhookUrl: string | null; webhookToken: string | null } | null,
  readToken: (stored: unknown) => string | null = storedToken,
): Target | null {
  if (thread && url(thread.webhookUrl))
    return { url: thread.webhookUrl!, token: readToken(thread.webhookToken), source: 'thread' };
  const own = EVENT_SETTINGS[event];
  if (url(settings[own.url]))
    return { url: settings[own.url] as string, token: readToken(settings[own.token]), source: 'event' };
  if (url(settings.webhookUrl))
    return { url: settings.webhookUrl as string, token: readToken(settings.webhookToken), source: 'global' };
  return null;
}

export const payloadVariant = (settings: Record<string, unknown>): PayloadVariant =>
  settings.webhookPayloadVariant === 'B' ? 'B' : 'A';

/** Every URL the chatbot's settings name, with the fields that name it (for the overview). */
export function configuredUrls(settings: Record<string, unknown>): string[] {
  const out = new Set<string>();
  for (const key of ['webhookUrl', ...Object.values(EVENT_SETTINGS).map((e) => e.url)]) {
    const u = url(settings[key]);
    if (u) out.add(u);
  }
  return [...out];
}
