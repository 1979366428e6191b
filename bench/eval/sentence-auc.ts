/**
 * Does a sentence-level similarity tell in-scope from near-topic questions better than the
 * passage-level one of tune-embeddings.ts? For each site, every sentence of its pages is
 * embedded (Universal Sentence Encoder lite, sentence-encoder.ts); a question's score is its
 * best cosine similarity to any sentence of the site, minus the same for the calibration's 24
 * unrelated probes (their mean). AUC of in-scope against near-topic out-of-scope, tuning halves
 * only. `npx tsx bench/eval/sentence-auc.ts`.
 */
import { PROBE_QUESTIONS } from '../../server/domain/answers/calibration.js';
import { CORPORA, loadCorpus } from './corpus.js';
import { sentenceEncoder } from './sentence-encoder.js';

const encoder = sentenceEncoder();
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);
const unit = (v: number[]) => {
  const n = Math.sqrt(dot(v, v));
  return v.map((x) => x / n);
};
const all: { inScope: boolean; margin: number }[] = [];
for (const name of CORPORA) {
  const corpus = loadCorpus(name);
  const sentences = corpus.pages.flatMap((p) =>
    p.sections.flatMap((s) => s.paragraphs.flatMap((para) => para.split(/(?<=[.!?])\s+/).filter((x) => x.length > 12))),
  );
  const vectors = (await encoder.embed(sentences)).map(unit);
  const best = async (qs: string[]) =>
    (await encoder.embed(qs)).map(unit).map((q) => Math.max(...vectors.map((v) => dot(q, v))));
  const probes = await best([...PROBE_QUESTIONS]);
  const baseline = probes.reduce((a, b) => a + b, 0) / probes.length;
  const questions = corpus.questions.filter((q) => q.split === 'tuning');
  const scores = await best(questions.map((q) => q.q));
  const mine = questions.map((q, i) => ({ inScope: q.kind !== 'oos', margin: scores[i] - baseline }));
  all.push(...mine);
  console.log(
    `${name}: ${sentences.length} sentences, probe baseline ${baseline.toFixed(2)}, AUC ${auc(mine).toFixed(2)}`,
  );
}
console.log(`all sites: AUC ${auc(all).toFixed(2)}`);

function auc(xs: { inScope: boolean; margin: number }[]) {
  const p = xs.filter((x) => x.inScope).map((x) => x.margin);
  const n = xs.filter((x) => !x.inScope).map((x) => x.margin);
  let a = 0;
  for (const x of p) for (const y of n) a += x > y ? 1 : x === y ? 0.5 : 0;
  return a / (p.length * n.length || 1);
}
