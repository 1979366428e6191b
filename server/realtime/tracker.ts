/**
 * Per-conversation delivery for one reader (a visitor's socket or stream, a team stream): the
 * highest seq it was sent per conversation, and one promise chain so catch-ups, replays and
 * transient frames leave in order. A doorbell only triggers a read of what is missing from the
 * database (or, when this instance's last commit of the conversation is exactly that, its copy
 * in memory), so nothing is sent twice and nothing is skipped, whichever doorbells are lost.
 */
import type { ServerFrame } from '../../shared/protocol.js';
import type { ConversationRecord } from '../domain/conversations/ports.js';
import type { ConversationReads } from '../domain/conversations/reads.js';
import type { ChatbotRecord } from '../domain/ports.js';
import type { Gateway } from './gateway.js';

interface Track {
  sent: number;
  chatbot: Pick<ChatbotRecord, 'id' | 'settings'>;
  /** Work queued and not done: a track with some is never let go. */
  pending: number;
}

const PAGE = 200;

export class Tracker {
  private readonly tracks = new Map<string, Track>();
  /**
   * One chain for all the reader's conversations: each conversation's frames leave in order, and
   * only one replay at a time waits for room, so a resume of many conversations never queues
   * more than the buffer's low-water mark and one frame.
   */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    /** The commits this instance keeps and the wire that renders events. */
    private readonly gateway: Pick<Gateway, 'committedAfter' | 'wire'>,
    /** Stored events and the conversation's condition, read when the kept commit is not what is missing. */
    private readonly reads: Pick<ConversationReads, 'get' | 'events'>,
    private readonly send: (frame: ServerFrame) => void,
    /** False once the reader is gone: queued work stops. */
    private readonly alive: () => boolean,
    private readonly onError: (err: unknown) => void,
    /** Waits until the reader has room (replays are paced by it). */
    private readonly room: () => Promise<void> | void = () => {},
    /**
     * Conversations followed at most (a team stream sees every conversation of its chatbots, for
     * days): beyond it the least recently active idle one is let go. It is followed again from
     * the change that rings next, which is what it would have been sent anyway.
     */
    private readonly most = Infinity,
  ) {}

  has(conversationId: string) {
    return this.tracks.has(conversationId);
  }

  get size() {
    return this.tracks.size;
  }

  /** Starts following a conversation from `sent` (what the reader already has). */
  track(conversationId: string, chatbot: Pick<ChatbotRecord, 'id' | 'settings'>, sent: number): void {
    if (this.tracks.has(conversationId)) return;
    if (this.tracks.size >= this.most) this.letGo();
    this.tracks.set(conversationId, { sent, chatbot, pending: 0 });
  }

  /** Stops following the least recently active conversation with nothing queued. */
  private letGo() {
    for (const [id, t] of this.tracks) {
      if (t.pending) continue;
      this.tracks.delete(id);
      return;
    }
  }

  /** The chatbot as read again: its conversations are rendered with it from the next frame on. */
  refresh(chatbot: Pick<ChatbotRecord, 'id' | 'settings'>): void {
    for (const t of this.tracks.values()) if (t.chatbot.id === chatbot.id) t.chatbot = chatbot;
  }

  /** Stops following the chatbot's conversations: work queued for them sends nothing more. */
  untrack(chatbotId: string): void {
    for (const [id, t] of this.tracks) if (t.chatbot.id === chatbotId) this.tracks.delete(id);
  }

  private following(conversationId: string, t: Track) {
    return this.alive() && this.tracks.get(conversationId) === t;
  }

  /** Queues work on the conversation's chain (after everything queued before it). */
  enqueue(conversationId: string, work: (t: Track) => Promise<void> | void): Promise<void> {
    const t = this.tracks.get(conversationId);
    if (!t) return Promise.resolve();
    // Most recently active last: the first idle one in the map is the one let go.
    if (this.most !== Infinity) {
      this.tracks.delete(conversationId);
      this.tracks.set(conversationId, t);
    }
    t.pending++;
    const next = this.chain
      .then(() => (this.following(conversationId, t) ? work(t) : undefined))
      .catch(this.onError)
      .finally(() => t.pending--);
    this.chain = next;
    return next;
  }

  /** Sends every stored event after what was sent, in order; `upTo`: the seq a doorbell announced. */
  catchUp(conversationId: string, upTo = Infinity): Promise<void> {
    return this.enqueue(conversationId, (t) => this.drain(conversationId, t, upTo));
  }

  /** Replays after `after`, then the current condition and `synced` (resume, open). */
  replay(conversation: ConversationRecord): Promise<void> {
    return this.enqueue(conversation.id, async (t) => {
      await this.drain(conversation.id, t);
      const fresh = (await this.reads.get(conversation.id)) ?? conversation;
      const condition = await this.gateway.wire.condition(t.chatbot, fresh);
      if (!this.following(conversation.id, t)) return;
      this.send(condition);
      this.send({ type: 'synced', conversationId: conversation.id, seq: t.sent });
    });
  }

  /**
   * A hello's resume: each conversation the reader may read is replayed (reading from the database
   * after the subscriptions: what committed meanwhile is in it); each other one is NOT_FOUND.
   */
  resume(resumed: Iterable<ConversationRecord>, unknown: Iterable<string>): void {
    for (const id of unknown) {
      this.send({
        type: 'error',
        code: 'NOT_FOUND',
        message: 'Conversation not found',
        ref: { type: 'hello', conversationId: id },
      });
    }
    for (const c of resumed) void this.replay(c);
  }

  /** A transient frame, in order with the stored ones. */
  transient(conversationId: string, frame: ServerFrame): void {
    void this.enqueue(conversationId, () => this.send(frame));
  }

  private async drain(conversationId: string, t: Track, upTo = Infinity) {
    for (;;) {
      // The commit that rang, kept by this instance, when it is exactly what this reader misses;
      // else a page read from the database.
      const recent = this.gateway.committedAfter(conversationId, t.sent, upTo);
      const events = recent ? recent.events : await this.reads.events(conversationId, t.sent, PAGE);
      for (const e of events) {
        const frame = await this.gateway.wire.frame(t.chatbot, e, recent?.messages);
        await this.room();
        if (!this.following(conversationId, t)) return;
        if (frame) this.send(frame);
        t.sent = e.seq;
      }
      if (recent || events.length < PAGE) return;
    }
  }
}
