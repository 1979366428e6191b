/** Full-jitter exponential backoff: a random wait up to min(cap, base * 2^attempt). */
export function backoffDelay(attempt: number, random: () => number = Math.random, base = 500, cap = 30_000): number {
  return Math.floor(random() * Math.min(cap, base * 2 ** Math.min(attempt, 16)));
}
