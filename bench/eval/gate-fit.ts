/**
 * Fits the learned gate (gate-model.ts) on the TUNING halves and fastify's sets of the features
 * gate-features-dump.ts wrote: a logistic model of "the question is one the site answers" over
 * the standardised features, L2-regularised, one parameter set for all corpora. Prints the AUC and
 * the gate's outcomes (in-scope answered, near-topic refused, retrieval-right share answered) at
 * a few cuts on tuning, then the chosen model's on held-out for the report.
 * `npx tsx bench/eval/gate-fit.ts [features.json]`; GATE_L2, GATE_CUTS, GATE_FEATURES, GATE_COMBINED
 * (the score gate and the model together); GATE_SHOW_HELD_OUT=1 for the report only, never to choose.
 */
import { readFileSync } from 'node:fs';
import { FEATURES, type GateFeatures } from '../../server/domain/answers/gate-features.js';
import { GATE_WEIGHTS } from '../../server/domain/answers/gate-model.js';

interface Row {
  corpus: string;
  q: string;
  kind: string;
  split: string;
  inScope: boolean;
  top3: boolean;
  relevant: boolean;
  f: GateFeatures;
}
const rows = JSON.parse(readFileSync(process.argv[2] ?? '/tmp/gate-features.json', 'utf8')) as Row[];
// The shipped model's features by default; GATE_FEATURES=all (or a list) to try others.
const chosen = process.env.GATE_FEATURES ?? Object.keys(GATE_WEIGHTS).join(',');
const names = (chosen === 'all' ? [...FEATURES] : chosen.split(',')) as (typeof FEATURES)[number][];
const lambda = Number(process.env.GATE_L2 ?? 0.01);
const tuning = rows.filter((r) => r.split === 'tuning');
const x = (r: Row) => names.map((n) => r.f[n]);

const mean = names.map((_, j) => tuning.reduce((s, r) => s + x(r)[j], 0) / tuning.length);
const sd = names.map(
  (_, j) => Math.sqrt(tuning.reduce((s, r) => s + (x(r)[j] - mean[j]) ** 2, 0) / tuning.length) || 1,
);
const z = (r: Row) => x(r).map((v, j) => (v - mean[j]) / sd[j]);
const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

// Each corpus weighs alike (fastify's 80 questions would otherwise pull as much as two sites).
const perCorpus = new Map<string, number>();
for (const r of tuning) perCorpus.set(r.corpus, (perCorpus.get(r.corpus) ?? 0) + 1);
let w = names.map(() => 0);
let b = 0;
for (let it = 0; it < 4000; it++) {
  const gw = names.map(() => 0);
  let gb = 0;
  let total = 0;
  for (const r of tuning) {
    const weight = 1 / perCorpus.get(r.corpus)!;
    const zr = z(r);
    const p = sigmoid(b + zr.reduce((s, v, j) => s + v * w[j], 0));
    const e = (p - (r.inScope ? 1 : 0)) * weight;
    zr.forEach((v, j) => (gw[j] += e * v));
    gb += e;
    total += weight;
  }
  w = w.map((wj, j) => wj - 0.5 * (gw[j] / total + lambda * wj));
  b -= 0.5 * (gb / total);
}
const prob = (r: Row) => sigmoid(b + z(r).reduce((s, v, j) => s + v * w[j], 0));

function auc(set: Row[], score: (r: Row) => number) {
  const pos = set.filter((r) => r.inScope).map(score);
  const neg = set.filter((r) => !r.inScope).map(score);
  let s = 0;
  for (const p of pos) for (const n of neg) s += p > n ? 1 : p === n ? 0.5 : 0;
  return s / (pos.length * neg.length);
}
function outcome(set: Row[], answer: (r: Row) => boolean) {
  const sites = set.filter((r) => r.corpus !== 'fastify');
  const ins = sites.filter((r) => r.inScope);
  const oos = sites.filter((r) => !r.inScope);
  const fi = set.filter((r) => r.corpus === 'fastify' && r.inScope);
  const fo = set.filter((r) => r.corpus === 'fastify' && !r.inScope);
  const share = (a: Row[], f: (r: Row) => boolean) => (a.length ? a.filter(f).length / a.length : NaN);
  return [
    `answered ${share(ins, answer).toFixed(2)}`,
    `hit3~ ${share(ins, (r) => answer(r) && r.top3).toFixed(2)}`,
    `rew3~ ${share(
      ins.filter((r) => r.kind === 'reworded'),
      (r) => answer(r) && r.top3,
    ).toFixed(2)}`,
    `oos refused ${share(oos, (r) => !answer(r)).toFixed(2)}`,
    `fastify ${share(fi, answer).toFixed(2)}/${share(fo, (r) => !answer(r)).toFixed(2)}`,
  ].join('  ');
}

console.log(names.map((n, j) => `${n} ${(w[j] / sd[j]).toFixed(3)}`).join(', '), `b ${b.toFixed(3)}`);
console.log(
  'raw weights',
  JSON.stringify({ names, w: w.map((v, j) => v / sd[j]), b: b - w.reduce((s, v, j) => s + (v * mean[j]) / sd[j], 0) }),
);
for (const split of ['tuning', 'held-out']) {
  const set = rows.filter((r) => r.split === split);
  const sites = set.filter((r) => r.corpus !== 'fastify');
  console.log(`${split}: AUC score ${auc(sites, (r) => r.f.score).toFixed(3)}  model ${auc(sites, prob).toFixed(3)}`);
  console.log(`  today's gate   ${outcome(set, (r) => r.relevant)}`);
  if (split === 'held-out' && !process.env.GATE_SHOW_HELD_OUT) continue;
  for (const cut of (process.env.GATE_CUTS ?? '0.3,0.4,0.5,0.6,0.7').split(',').map(Number)) {
    console.log(`  model >= ${cut.toFixed(2)}  ${outcome(set, (r) => prob(r) >= cut)}`);
    if (process.env.GATE_COMBINED) {
      console.log(`    and gate     ${outcome(set, (r) => r.relevant && prob(r) >= cut)}`);
      console.log(`    or gate      ${outcome(set, (r) => r.relevant || prob(r) >= cut)}`);
    }
  }
}
