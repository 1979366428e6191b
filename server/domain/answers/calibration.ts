/**
 * The relevance gate's threshold, calibrated against each chatbot's own knowledge: how well does
 * an unrelated question seem covered *here*? A big technical base has a page that holds
 * "world", "life" or "time" and a WordNet stand-in for nearly anything, so questions it cannot
 * answer still find passages covering some of their words; a small help centre's passages cover
 * almost nothing of them. The gate asks more of a base where chance coverage is high.
 *
 * The probes are everyday questions no product's documentation answers (gardening, history,
 * music...), none of them from the eval's or fastify's question sets. Each is run through the
 * same concepts, search and gate as a visitor's question; the threshold is
 *
 *   threshold = floor + slope x (mean probe score)
 *
 * computed once per knowledge version (the profile object changes when the chunks do) and
 * cached. FLOOR and SLOPE were chosen on the tuning halves of the answer eval with fastify as a
 * sixth corpus (bench/eval/tune.ts).
 */
export const CALIBRATION_FLOOR = 0.1;
export const CALIBRATION_SLOPE = 1;

export const PROBE_QUESTIONS: readonly string[] = [
  'How often should I water tomato plants in summer?',
  'Which year did the Roman Empire fall?',
  'What is a good warm-up before running?',
  'How do I remove a red wine stain from a carpet?',
  'What are the rules of chess castling?',
  'How many legs does a spider have?',
  'Which vitamins are in oranges?',
  'How do I tune a violin?',
  'What is the tallest mountain in Africa?',
  'How long do cats usually live?',
  'What causes thunder during a storm?',
  'Who painted the Mona Lisa?',
  'How do I fold a paper airplane?',
  'What is the boiling point of water at altitude?',
  'How can I fall asleep faster at night?',
  'What should I pack for a skiing holiday?',
  'How do bees make honey?',
  'Which planet has the most moons?',
  'How do I descale a kettle?',
  'What is the plot of Hamlet?',
  'How do I teach my parrot to talk?',
  'Which wine goes with grilled fish?',
  'How do volcanoes form?',
  'What is the best age to start piano lessons?',
];

/**
 * Between the threshold and this share of it, the best passage is close but not sure to answer:
 * the built-in answerer answers, opening with the locale's "I'm not sure this answers it, but…"
 * (messages.ts notSure) and its sources, rather than refusing or pretending. Chosen on the tuning
 * halves of the answer eval (bench/eval/tune.ts).
 */
export const HEDGE_RATIO = 1;

export interface CalibrationOptions {
  floor?: number;
  slope?: number;
  /** HEDGE_RATIO; 1: no hedged answers. */
  hedgeRatio?: number;
}

/** The threshold for a base whose probes scored `scores`. */
export function calibratedThreshold(scores: number[], options: CalibrationOptions = {}): number {
  const mean = scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : 0;
  return (options.floor ?? CALIBRATION_FLOOR) + (options.slope ?? CALIBRATION_SLOPE) * mean;
}
