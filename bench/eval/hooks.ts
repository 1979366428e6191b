/**
 * Figures other than retrieval's, plugged into the answer eval (answers-eval.ts): each hook sees
 * every corpus once, after its questions were asked (the bot is still up, so it can ask more,
 * e.g. click follow-ups), stores what it measured on the outcomes (`extra[name]`), and prints one
 * column per row from the outcomes of that row (a corpus's split, or overall).
 */
import type { Corpus } from './corpus.js';
import type { ApiAnswer, Bot, Outcome } from './answers-eval.js';
import { followUpCheck } from './follow-up-check.js';

export interface HookContext {
  corpus: Corpus;
  bot: Bot;
  /** The fresh outcomes of every asked question, in the corpus's order. */
  outcomes: Outcome[];
  /** Asks through the real route: a new conversation, or the next message of `conversationId`. */
  ask(message: string, conversationId?: string): Promise<{ answer: ApiAnswer; conversationId: string }>;
}

export interface EvalHook {
  /** The column's short name. */
  name: string;
  corpus(ctx: HookContext): Promise<void>;
  /** The column's text for these outcomes (a split of a corpus, or all corpora). */
  value(outcomes: Outcome[]): string;
}

export const EVAL_HOOKS: EvalHook[] = [followUpCheck];
