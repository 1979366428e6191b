/**
 * The realtime hub: topics carry small JSON messages between the parts of one server and,
 * with Redis, between server instances. The database stays the record: a hub message says
 * "conversation X reached seq N" (readers fetch what they missed) or carries a transient
 * frame (answer deltas, typing) that is never stored. Delivery is at most once; readers that
 * miss a doorbell catch up at the next one or on resume.
 */

/** What travels on a topic. */
export type HubMessage =
  /** Events up to `seq` of a conversation are committed. */
  | {
      kind: 'committed';
      conversationId: string;
      chatbotId: string;
      chatUserId: string | null;
      seq: number;
      types: string[];
    }
  /** A transient server frame for the readers of a conversation. */
  | {
      kind: 'transient';
      conversationId: string;
      chatbotId: string;
      chatUserId: string | null;
      frame: Record<string, unknown>;
    }
  /** A visitor session ended (logout): its other tabs close. */
  | { kind: 'logout'; chatUserId: string; sid: string };

/** On `topics.chatbots`: a chatbot's settings, identity secret or existence changed; each instance reads it again. */
export type ChatbotChangedMessage = {
  kind: 'chatbot';
  chatbotId: string;
  /** The instance that rang (it has acted already). */ from: string;
};

/** Whatever a topic carries: `HubMessage` on the conversation topics, `ChatbotChangedMessage` on `topics.chatbots`. */
export type AnyHubMessage = HubMessage | ChatbotChangedMessage;

export type HubHandler = (message: AnyHubMessage) => void;

export interface RealtimeHub {
  /** Delivers to every subscriber of `topic`, on this instance and (Redis) on the others. */
  publish(topic: string, message: AnyHubMessage): Promise<void>;
  /** Resolves, once messages published from now on will arrive, with the unsubscribe function (`M`: what the topic carries). */
  subscribe<M extends AnyHubMessage = HubMessage>(topic: string, handler: (message: M) => void): Promise<() => void>;
  /** Which visitors hold a socket or stream, on any instance (who gets an e-mail instead). */
  presence: Presence;
  close(): Promise<void>;
  /** With Redis: each connection's ioredis state (`ready`, `connecting`, `reconnecting`, `end`…) and a PING (readiness). */
  redis?: { states(): { command: string; subscriber: string }; ping(timeoutMs: number): Promise<void> };
}

export interface Presence {
  /** This instance now holds (`true`: its first) or no longer holds (`false`: its last) a connection of the visitor. */
  set(chatUserId: string, here: boolean): void;
  /** True while any instance holds a connection of the visitor. */
  present(chatUserId: string): Promise<boolean>;
}

/** Presence within one process. */
export class LocalPresence implements Presence {
  readonly here = new Set<string>();
  set(chatUserId: string, here: boolean) {
    if (here) this.here.add(chatUserId);
    else this.here.delete(chatUserId);
  }
  async present(chatUserId: string) {
    return this.here.has(chatUserId);
  }
}

/** Topic names, in one place. */
export const topics = {
  /** Every change of a chatbot's conversations (the team's live stream). */
  chatbot: (chatbotId: string) => `bot:${chatbotId}`,
  /** Every change of one visitor's conversations (all their tabs and devices). */
  visitor: (chatUserId: string) => `visitor:${chatUserId}`,
  /** Chatbots changed (`ChatbotChangedMessage`): one topic every instance follows. */
  chatbots: 'chatbots',
};

/** Topic -> handlers, shared by both implementations for local fan-out. */
export class Subscribers {
  private readonly byTopic = new Map<string, Set<HubHandler>>();

  /** Adds a handler; true when it is the topic's first on this instance. */
  add(topic: string, handler: HubHandler): boolean {
    let set = this.byTopic.get(topic);
    const first = !set;
    if (!set) this.byTopic.set(topic, (set = new Set()));
    set.add(handler);
    return first;
  }

  /** Removes a handler; true when the topic has none left. */
  remove(topic: string, handler: HubHandler): boolean {
    const set = this.byTopic.get(topic);
    if (!set) return false;
    set.delete(handler);
    if (set.size) return false;
    this.byTopic.delete(topic);
    return true;
  }

  deliver(topic: string, message: AnyHubMessage, onError: (err: unknown) => void): void {
    const set = this.byTopic.get(topic);
    if (!set) return;
    for (const handler of [...set]) {
      try {
        handler(message);
      } catch (err) {
        onError(err);
      }
    }
  }

  get topicCount(): number {
    return this.byTopic.size;
  }
}

/** The embedded default: one process, delivery in the same tick. */
export class InProcessHub implements RealtimeHub {
  private readonly subscribers = new Subscribers();
  readonly presence = new LocalPresence();
  constructor(private readonly onError: (err: unknown) => void = () => {}) {}

  async publish(topic: string, message: AnyHubMessage): Promise<void> {
    this.subscribers.deliver(topic, message, this.onError);
  }

  async subscribe<M extends AnyHubMessage = HubMessage>(
    topic: string,
    typed: (message: M) => void,
  ): Promise<() => void> {
    const handler = typed as HubHandler;
    this.subscribers.add(topic, handler);
    return () => void this.subscribers.remove(topic, handler);
  }

  async close(): Promise<void> {}
}
