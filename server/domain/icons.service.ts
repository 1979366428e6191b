/**
 * Chatbot icons: images checked by their bytes (never by the client's claimed type), stored in
 * the database under a generated id (so every instance serves them) and served publicly at
 * `{site_url}/icons/{id}.{ext}`, the URL the matching `*IconSrcId` setting holds.
 */
import { fileTypeFromBuffer } from 'file-type';
import { ICON_TYPES, type IconType } from '../../shared/settings.js';
import type { AuthContext } from './auth.js';
import { type ChatbotsService, writeInternalSettings } from './chatbots.service.js';
import { AppError, confirmationRequired, notFound, validationFailed } from './errors.js';
import { newId, nowIso } from './ids.js';
import type { Store } from './ports.js';

/** Raster formats only: SVG can carry script, so it is refused. */
const ALLOWED: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/x-icon': 'ico',
};

export class IconsService {
  constructor(
    private readonly store: Store,
    private readonly chatbots: ChatbotsService,
    private readonly siteUrl: string,
  ) {}

  async upload(auth: AuthContext, chatbotId: string, type: string, bytes: Buffer) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    // Own keys only: `constructor`, `__proto__` and the like are not icon types.
    if (!Object.hasOwn(ICON_TYPES, type)) {
      throw validationFailed([{ path: ['type'], message: `must be one of ${Object.keys(ICON_TYPES).join(', ')}` }]);
    }
    const detected = await fileTypeFromBuffer(bytes);
    const ext = detected && ALLOWED[detected.mime];
    if (!detected || !ext) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The file is not a PNG, JPEG, GIF, WebP or ICO image', {
        hint: 'Upload a raster image; SVG is not accepted',
      });
    }
    const icon = {
      id: newId(),
      chatbotId: chatbot.id,
      type,
      mime: detected.mime,
      size: bytes.length,
      createdAt: nowIso(),
    };
    const url = `${this.siteUrl}/icons/${icon.id}.${ext}`;
    const setting = ICON_TYPES[type as IconType];
    await this.store.transaction(async (s) => {
      const old = await s.icons.ofType(chatbot.id, type);
      await s.icons.insert(icon, bytes);
      await s.icons.delete(old.map((o) => o.id));
      await writeInternalSettings(s, chatbot, { [setting]: url });
    });
    await this.chatbots.changed(chatbot.id);
    return { icon: { id: icon.id, type, mime: icon.mime, size: icon.size, url, setting, createdAt: icon.createdAt } };
  }

  async remove(auth: AuthContext, chatbotId: string, type: string, confirm: boolean) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    if (!Object.hasOwn(ICON_TYPES, type)) throw notFound('Icon type');
    if (!confirm) throw confirmationRequired('Add ?confirm=true to delete this icon');
    const setting = ICON_TYPES[type as IconType];
    const old = await this.store.icons.ofType(chatbot.id, type);
    if (!old.length && !chatbot.settings[setting]) throw notFound('Icon');
    await this.store.transaction(async (s) => {
      await s.icons.delete(old.map((o) => o.id));
      await writeInternalSettings(s, chatbot, { [setting]: null });
    });
    await this.chatbots.changed(chatbot.id);
    return { deletedIcon: { type, setting, ids: old.map((o) => o.id) } };
  }

  /** Public read: `{id}.{ext}`; the extension must match the stored type. */
  async file(name: string): Promise<{ mime: string; bytes: Buffer } | null> {
    const m = /^([A-Za-z0-9_-]{1,64})\.([a-z]{2,4})$/.exec(name);
    if (!m) return null;
    const icon = await this.store.icons.get(m[1]);
    if (!icon || ALLOWED[icon.mime] !== m[2]) return null;
    return { mime: icon.mime, bytes: icon.bytes };
  }
}
