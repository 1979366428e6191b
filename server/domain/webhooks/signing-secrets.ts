/**
 * Each chatbot's signing secret, sealed at rest. Created on first need; rotation keeps the
 * previous secret signing beside the new one for an overlap, so receivers can switch without
 * refusing a delivery.
 */
import type { Store } from '../ports.js';
import type { SecretBox } from '../secrets.js';
import { generateSecret } from './signature.js';

const context = (chatbotId: string) => `webhook-secret:${chatbotId}`;

/**
 * How long a process reuses the secrets it read (not a decrypt per delivery). A rotation made by
 * this process applies at once; one made by another instance within this time.
 */
const CACHE_MS = 5_000;

export class SigningSecrets {
  private readonly cache = new Map<string, { until: number; previousUntil: string | null; secrets: string[] }>();

  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
  ) {}

  /** The secrets that sign a delivery at `now`, newest first; creates the first one when there is none. */
  async signing(chatbotId: string, now: string): Promise<string[]> {
    const hit = this.cache.get(chatbotId);
    const at = Date.now();
    if (hit && hit.until > at)
      return hit.previousUntil && hit.previousUntil <= now ? hit.secrets.slice(0, 1) : hit.secrets;
    const secrets = await this.read(chatbotId, now);
    this.cache.set(chatbotId, { until: at + CACHE_MS, ...secrets });
    if (this.cache.size > 10_000) this.cache.delete(this.cache.keys().next().value!);
    return secrets.previousUntil && secrets.previousUntil <= now ? secrets.secrets.slice(0, 1) : secrets.secrets;
  }

  private async read(chatbotId: string, now: string): Promise<{ previousUntil: string | null; secrets: string[] }> {
    let record = await this.store.webhooks.secrets.get(chatbotId);
    if (!record) {
      await this.create(chatbotId, now);
      record = await this.store.webhooks.secrets.get(chatbotId);
    }
    if (!record) return { previousUntil: null, secrets: [] };
    const out = [this.box.decrypt(record.sealedSecret, context(chatbotId))];
    if (record.sealedPrevious && record.previousUntil && record.previousUntil > now)
      out.push(this.box.decrypt(record.sealedPrevious, context(chatbotId)));
    return { previousUntil: out.length > 1 ? record.previousUntil : null, secrets: out };
  }

  /** Creates the first secret; returns it when this call created it, null when one existed. */
  async create(chatbotId: string, now: string): Promise<string | null> {
    this.cache.delete(chatbotId);
    const secret = generateSecret();
    const created = await this.store.webhooks.secrets.create({
      chatbotId,
      sealedSecret: this.box.encrypt(secret, context(chatbotId)),
      createdAt: now,
      sealedPrevious: null,
      previousUntil: null,
    });
    return created ? secret : null;
  }

  /** A new secret; the current one keeps signing until `previousUntil` (none when overlapMs is 0). */
  async rotate(
    chatbotId: string,
    now: string,
    overlapMs: number,
  ): Promise<{ secret: string; createdAt: string; previousUntil: string | null }> {
    this.cache.delete(chatbotId);
    const current = await this.store.webhooks.secrets.get(chatbotId);
    if (!current) {
      const secret = await this.create(chatbotId, now);
      if (secret) return { secret, createdAt: now, previousUntil: null };
      return this.rotate(chatbotId, now, overlapMs);
    }
    const secret = generateSecret();
    const previousUntil = overlapMs > 0 ? new Date(Date.parse(now) + overlapMs).toISOString() : null;
    await this.store.webhooks.secrets.put({
      chatbotId,
      sealedSecret: this.box.encrypt(secret, context(chatbotId)),
      createdAt: now,
      sealedPrevious: previousUntil ? current.sealedSecret : null,
      previousUntil,
    });
    return { secret, createdAt: now, previousUntil };
  }
}
