/** What every resource service shares: the chatbot reach, the per-chatbot caps, trimmed text. */
import type { ChatbotsService } from '../chatbots.service.js';
import type { CursorCodec } from '../cursor.js';
import { AppError } from '../errors.js';
import type { Store } from '../ports.js';

export interface ResourceDeps {
  store: Store;
  chatbots: ChatbotsService;
  cursors: CursorCodec;
}

/**
 * The most of each unpaginated list one chatbot may hold: their lists are returned whole (the
 * widget shows starters and follow-ups at once), so they stay small.
 */
export const CAPS = { starters: 100, followups: 100, instructions: 100, personas: 100, tags: 200 } as const;

/** Refuses a create past the cap with VALIDATION_FAILED, naming what to do instead. */
export function assertBelowCap(what: keyof typeof CAPS, current: number): void {
  const max = CAPS[what];
  if (current >= max) {
    throw new AppError('VALIDATION_FAILED', `This chatbot already has ${max} ${what}, the most one chatbot may hold`, {
      details: [{ path: [], message: `a chatbot holds at most ${max} ${what}` }],
      hint: `Delete ${what} you no longer need, then add again`,
    });
  }
}

/** Text as stored: surrounding whitespace removed (schemas already require a non-space character). */
export const clean = (value: string) => value.trim();
