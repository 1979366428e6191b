/**
 * The learned relevance decision: a logistic model over the gate's features (gate-features.ts)
 * of "this is a question the knowledge answers", fitted on the tuning halves of the answer eval
 * and fastify's sets (bench/eval/gate-fit.ts; one parameter set for every base). Tuning AUC 0.80
 * against the coverage score's 0.76, held out 0.68 for both: it moves the operating point (more
 * near-topic questions refused) more than it separates (bench/README.md, "A learned gate").
 */
import type { GateFeatures } from './gate-features.js';

/** Per feature, on its raw scale; refit with bench/eval/gate-fit.ts when a feature changes. */
export const GATE_WEIGHTS: Partial<GateFeatures> = {
  score: -0.0869,
  best: 1.6621,
  union: 0.7579,
  margin: 1.824,
  own: 0.3608,
  heavy: -0.0204,
  missing: -0.8013,
  title: 1.3134,
  asksMatch: 1.2851,
  chance: -3.6843,
  unknown: -0.7714,
  absent: -0.233,
};
export const GATE_BIAS = 1.0641;

/**
 * At or above: covered. Chosen on the tuning halves as the cut that refuses the most near-topic
 * questions while fastify's docs keep >= 0.9 on-topic answered and >= 0.85 off-topic refused.
 */
export const GATE_CUT = 0.72;
/** From here up to GATE_CUT: covered but not sure (the built-in answer says so). GATE_CUT: none. */
export const GATE_HEDGE_CUT = 0.72;

/** The probability that the knowledge answers the question. */
export function gateProbability(f: GateFeatures): number {
  let v = GATE_BIAS;
  for (const k of Object.keys(GATE_WEIGHTS) as (keyof GateFeatures)[]) v += GATE_WEIGHTS[k]! * f[k];
  return 1 / (1 + Math.exp(-v));
}
