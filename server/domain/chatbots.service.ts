import { DEFAULT_SETTINGS, SECTION_FIELDS, type SettingsSection } from '../../shared/settings.js';
import { type AuthContext, assertChatbotReach } from './auth.js';
import type { CursorCodec } from './cursor.js';
import { AppError, chatbotNotFound, confirmationRequired, validationFailed } from './errors.js';
import { newId, nowIso } from './ids.js';
import { freeFormErrors } from './free-form.js';
import { requireFeature } from './plans.js';
import { keepMaskedSecret, visibleSettings } from './secret-settings.js';
import type { ChatbotRecord, Page, PageRequest, Store } from './ports.js';
import { checkLeadFields, type LeadField } from './resources/lead-fields.js';

export interface ChatbotView {
  id: string;
  title: string;
  description: string;
  createdById: string;
  createdByEmail: string | null;
  createdAt: string;
  updatedAt: string;
  settings: Record<string, unknown>;
}

export type SettingsPatch = Partial<Record<SettingsSection, Record<string, unknown>>>;

/** Changing these needs the plan's branding removal; the defaults may always be restored. */
const BRANDING_FIELDS = ['hideWatermark', 'watermarkText', 'watermarkLink'] as const;

/** Told after a chatbot's change is stored (settings, identity secret, deletion); awaited, so it may ring other instances first. */
export type ChatbotChangeListener = (chatbotId: string) => void | Promise<void>;

export class ChatbotsService {
  private readonly listeners = new Set<ChatbotChangeListener>();

  constructor(
    private readonly store: Store,
    private readonly cursors: CursorCodec,
    /** Refuses webhook URLs that are not HTTPS or point inside (webhooks/webhooks.service.ts checkWebhookUrls). */
    private readonly checkWebhookUrls: (
      fields: Record<string, unknown>,
      path: (string | number)[],
    ) => Promise<void> = async () => {},
  ) {}

  /** Listens to every stored change of a chatbot (the realtime gateway tells open sockets); returns the detach function. */
  onChange(listener: ChatbotChangeListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * A chatbot's stored state changed (or it was deleted): every listener is told before the
   * caller answers, so open widgets act with the change from the owner's response on. Listeners
   * handle their own failures; a thrown one is ignored (the change is stored either way).
   */
  async changed(chatbotId: string): Promise<void> {
    await Promise.allSettled([...this.listeners].map(async (listener) => listener(chatbotId)));
  }

  /**
   * The chatbot the caller names, or 404 when it is missing or out of the token's reach. A user
   * with the dashboard role `member` reaches only the chatbots they were added to as a member.
   */
  async reach(auth: AuthContext, chatbotId: string): Promise<ChatbotRecord> {
    const chatbot = assertChatbotReach(auth, await this.store.chatbots.get(chatbotId));
    if (auth.user.role === 'member' && !(await this.store.resources.members.byUser(chatbot.id, auth.user.id)))
      throw chatbotNotFound();
    return chatbot;
  }

  /** Every chatbot the token reaches: all of the account's (owners, admins) or the member's, within its restriction (the team stream follows them all). */
  async allReachable(auth: AuthContext): Promise<ChatbotRecord[]> {
    const out: ChatbotRecord[] = [];
    const only = auth.token.chatbotIds ?? null;
    let after: PageRequest['after'] = null;
    for (;;) {
      const page: Page<ChatbotRecord> =
        auth.user.role === 'member'
          ? await this.store.chatbots.memberPage(auth.user.id, { limit: 100, after }, only)
          : await this.store.chatbots.page(auth.account.id, { limit: 100, after }, only);
      out.push(...page.items);
      if (!page.next) return out;
      after = page.next;
    }
  }

  async create(
    auth: AuthContext,
    input: { title: string; description?: string; settings?: SettingsPatch },
  ): Promise<ChatbotView> {
    if (auth.token.chatbotIds) {
      // It could never reach what it created: refuse rather than make an orphan it cannot see.
      throw new AppError('TOKEN_SCOPE_NOT_ALLOWED', 'A token restricted to chosen chatbots cannot create chatbots', {
        details: { requiredScopes: ['chatbots:write'], restrictedTo: auth.token.chatbotIds },
        hint: 'Create chatbots with a token that is not restricted to chosen chatbots',
      });
    }
    if (!input.title.trim()) throw validationFailed([{ path: ['title'], message: 'must not be blank' }]);
    const at = nowIso();
    const chatbot: ChatbotRecord = {
      id: newId(),
      accountId: auth.account.id,
      createdById: auth.user.id,
      title: input.title.trim(),
      description: input.description ?? '',
      settings: { ...DEFAULT_SETTINGS },
      createdAt: at,
      updatedAt: at,
    };
    if (input.settings) this.apply(auth, chatbot, input.settings);
    if (input.settings?.webhooks) await this.checkWebhookUrls(input.settings.webhooks, ['settings', 'webhooks']);
    await this.store.transaction(async (s) => {
      const count = await s.chatbots.count(auth.account.id);
      if (count >= auth.account.plan.maxChatbots) {
        throw new AppError(
          'CHATBOT_LIMIT_REACHED',
          `This plan allows ${auth.account.plan.maxChatbots} chatbots and all are in use`,
          {
            hint: 'Delete a chatbot you no longer need (DELETE /chatbots/{chatbotId}?confirm=true) or upgrade the plan',
          },
        );
      }
      await s.chatbots.insert(chatbot);
    });
    return this.view(chatbot, auth);
  }

  /**
   * Owners and admins: every chatbot of the account, newest created first. Members: the chatbots
   * they were added to, most recently added first (its own cursor list).
   */
  async list(auth: AuthContext, limit: number, cursor?: string) {
    const member = auth.user.role === 'member';
    const list = member ? 'chatbots:member' : 'chatbots';
    const request = { limit, after: this.cursors.decode(list, cursor) };
    const page = member
      ? await this.store.chatbots.memberPage(auth.user.id, request, auth.token.chatbotIds)
      : await this.store.chatbots.page(auth.account.id, request, auth.token.chatbotIds);
    const creators = new Map<string, string | null>();
    const chatbots = [];
    for (const c of page.items) chatbots.push(await this.view(c, auth, creators));
    return { chatbots, nextCursor: this.cursors.encode(list, page.next) };
  }

  async get(auth: AuthContext, chatbotId: string): Promise<ChatbotView> {
    return this.view(await this.reach(auth, chatbotId), auth);
  }

  async delete(auth: AuthContext, chatbotId: string, confirm: boolean): Promise<ChatbotView> {
    const chatbot = await this.reach(auth, chatbotId);
    if (!confirm) throw confirmationRequired('Add ?confirm=true to delete this chatbot and everything in it');
    const view = await this.view(chatbot, auth);
    await this.store.chatbots.delete(chatbot.id);
    await this.changed(chatbot.id);
    return view;
  }

  /** Applies one or several settings sections at once; either all of them change or none. */
  async patchSettings(auth: AuthContext, chatbotId: string, patch: SettingsPatch): Promise<ChatbotView> {
    const chatbot = await this.reach(auth, chatbotId);
    this.apply(auth, chatbot, patch);
    if (patch.webhooks) await this.checkWebhookUrls(patch.webhooks, ['webhooks']);
    chatbot.updatedAt = nowIso();
    await this.store.chatbots.update(
      chatbot.id,
      { title: chatbot.title, description: chatbot.description, settings: chatbot.settings },
      chatbot.updatedAt,
    );
    await this.changed(chatbot.id);
    return this.view(chatbot, auth);
  }

  private apply(auth: AuthContext, chatbot: ChatbotRecord, patch: SettingsPatch): void {
    if (patch.webhooks) requireFeature(auth.account, 'webhooks');
    const appearance = patch.appearance ?? {};
    const changesBranding = BRANDING_FIELDS.some(
      (k) => k in appearance && appearance[k] !== DEFAULT_SETTINGS[k] && appearance[k] !== chatbot.settings[k],
    );
    if (changesBranding) requireFeature(auth.account, 'brandingRemoval');
    const leadFields = patch['user-data']?.leadFields;
    if (Array.isArray(leadFields)) {
      const errors = checkLeadFields(leadFields as LeadField[]);
      if (errors.length) throw validationFailed(errors, 'The lead fields are not valid');
    }
    const bounds = freeFormErrors(patch.general?.metadata, ['general', 'metadata']);
    if (bounds.length) throw validationFailed(bounds);
    const title = patch.general?.title;
    if (typeof title === 'string' && !title.trim())
      throw validationFailed([{ path: ['general', 'title'], message: 'must not be blank' }]);
    for (const section of Object.keys(patch) as SettingsSection[]) {
      for (const [key, value] of Object.entries(patch[section] ?? {})) {
        if (!(key in SECTION_FIELDS[section])) continue; // schema validation already refused it
        if (key === 'title') chatbot.title = String(value).trim();
        else if (key === 'description') chatbot.description = String(value);
        else if (key === 'localization')
          chatbot.settings.localization = mergeLocalization(chatbot.settings.localization, value);
        else chatbot.settings[key] = keepMaskedSecret(key, value, chatbot.settings[key]);
      }
    }
  }

  private async view(
    c: ChatbotRecord,
    auth: AuthContext,
    creators = new Map<string, string | null>(),
  ): Promise<ChatbotView> {
    // The caller's own user was read with the token in this request: no second read for it.
    if (c.createdById === auth.user.id) creators.set(c.createdById, auth.user.email);
    else if (!creators.has(c.createdById))
      creators.set(c.createdById, (await this.store.users.get(c.createdById))?.email ?? null);
    return {
      id: c.id,
      title: c.title,
      description: c.description,
      createdById: c.createdById,
      createdByEmail: creators.get(c.createdById) ?? null,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
      settings: visibleSettings(auth, c.settings, DEFAULT_SETTINGS),
    };
  }
}

/** Writes read-only settings (icon URLs, the active instruction) from their own routes, in `store`'s transaction. */
export async function writeInternalSettings(
  store: Store,
  chatbot: ChatbotRecord,
  values: Record<string, unknown>,
): Promise<void> {
  const settings = { ...chatbot.settings, ...values };
  await store.chatbots.update(chatbot.id, { settings }, nowIso());
  chatbot.settings = settings;
}

/** Localization PATCHes merge group by group, so changing one string keeps the others. */
function mergeLocalization(current: unknown, patch: unknown): unknown {
  if (patch === null) return null;
  const base = (current && typeof current === 'object' ? current : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    const prev = base[k];
    out[k] = v && typeof v === 'object' && prev && typeof prev === 'object' ? { ...prev, ...v } : v;
  }
  return out;
}
