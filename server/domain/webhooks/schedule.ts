/**
 * Retry schedules of spec section 6, one per payload variant (the two texts disagree; each
 * variant keeps its own), and the rules that disable a target.
 */
import type { PayloadVariant } from './ports.js';

/**
 * Delays before each retry, in ms. A: up to 3 retries after 1 s, 5 s and 25 s (4 attempts).
 * B: retries after 1 s, 5 s, 30 s and 5 min (5 attempts); "abandoned after 4 failed attempts" is
 * read as 4 failed retries, so the 5-minute retry the same text lists is made.
 */
export const RETRY_DELAYS_MS: Record<PayloadVariant, readonly number[]> = {
  A: [1_000, 5_000, 25_000],
  B: [1_000, 5_000, 30_000, 300_000],
};

/** Deliveries to one target that ran out of retries in a row before the target is disabled. */
export const DISABLE_AFTER_FAILED_DELIVERIES = 5;

/** Statuses that tell a sender to stop for good (Standard Webhooks, Svix): 410 Gone disables at once. */
export const GONE_STATUS = 410;

/** The delay before the next attempt after `attemptsMade` failed ones, or null when the schedule is used up. */
export function retryDelay(variant: PayloadVariant, attemptsMade: number): number | null {
  return RETRY_DELAYS_MS[variant][attemptsMade - 1] ?? null;
}

/** Success is any 2xx; redirects are not followed, so a 3xx is a failure like any other. */
export const isSuccess = (status: number) => status >= 200 && status < 300;
