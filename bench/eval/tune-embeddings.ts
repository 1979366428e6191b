/**
 * Hybrid retrieval with a real sentence-embedding model, tuned on the TUNING halves of the answer
 * eval only (the held-out halves are never read here), fastify's sets as a sixth corpus like
 * tune.ts. The model (Universal Sentence Encoder lite, embeddings-server.ts) is served on an
 * OpenAI-compatible endpoint; every corpus is crawled by an app configured with it
 * (OPENAI_BASE_URL + EMBEDDING_MODEL), so its chunks' vectors are written at ingest through the
 * real wiring. Then, per retrieval setting (the vector list's fusion weight), two engines answer
 * every question: one with the gate as configured, which reports its score and threshold, and one
 * with the gate open, which gives the answer the question gets when admitted. The best cosine
 * similarity among the gate's passages, and its baseline on the base (the mean over the
 * calibration's unrelated probe questions, calibration.ts), are read from the same searches. Each
 * gate rule (words alone; or a question admitted by its similarity, refused by it) is then
 * evaluated from these without asking again. Also printed: retrieval alone (lexical, expanded,
 * vectors, fused) and how well each signal separates in-scope from near-topic questions (AUC).
 * `npx tsx bench/eval/tune-embeddings.ts`; TUNE_NO_FASTIFY=1 leaves fastify out (3+ minutes of
 * embedding), EVAL_CORPUS and TUNE_FUSION (weights, comma-separated) narrow the grid.
 */
import { readFileSync } from 'node:fs';
import { createAnswerEngine } from '../../server/domain/answers/engine.js';
import { calibratedThreshold, PROBE_QUESTIONS } from '../../server/domain/answers/calibration.js';
import { conceptRelevance, GATE_DEPTH } from '../../server/domain/answers/relevance.js';
import { createExtractiveProvider } from '../../server/domain/answers/extractive.js';
import { closeExtractionWorkers } from '../../server/adapters/extraction/index.js';
import { openAIEmbeddings } from '../../server/adapters/openai-embeddings.js';
import { createRetriever, RRF_K } from '../../server/domain/knowledge/retrieval.js';
import type {
  EmbeddingsPort,
  KnowledgeStore,
  SearchHit,
  VectorIndexPort,
} from '../../server/domain/knowledge/ports.js';
import { createWordNet } from '../../server/adapters/wordnet.js';
import { answerContextRepository } from '../../server/storage/answers.repository.js';
import type { AnswerContextStore } from '../../server/domain/answers/ports.js';
import { profileCache } from '../../server/domain/answers/knowledge-profile.js';
import { expandedQuery, questionConcepts } from '../../server/domain/answers/expansion.js';
import { SENTENCE_ENCODER_MODEL } from './sentence-encoder.js';
import { ingestFastifyDocs, openAnswersDb } from '../../test/server/domain/answers/fixtures.js';
import { figures, ingestCorpus, type Bot, type Outcome } from './answers-eval.js';
import { CORPORA, loadCorpus, type Corpus, type Question } from './corpus.js';
import { startEmbeddingsServer } from './embeddings-server.js';

const wordnet = createWordNet();
const server = await startEmbeddingsServer();

/** The endpoint client with a memo: the same questions and probes are embedded under every setting. */
async function cachedEmbeddings(): Promise<EmbeddingsPort> {
  const client = await openAIEmbeddings({
    baseUrl: server.baseUrl,
    model: SENTENCE_ENCODER_MODEL,
    fetch: globalThis.fetch,
  });
  const memo = new Map<string, number[]>();
  return {
    model: client.model,
    dimensions: client.dimensions,
    async embed(texts) {
      const missing = [...new Set(texts.filter((t) => !memo.has(t)))];
      // One retry: the endpoint shares this process, and a request can meet a socket being closed.
      if (missing.length)
        (await client.embed(missing).catch(() => client.embed(missing))).forEach((v, i) => memo.set(missing[i], v));
      return texts.map((t) => memo.get(t)!);
    },
  };
}
const embeddings = await cachedEmbeddings();

interface Base {
  name: string;
  store: Pick<KnowledgeStore, 'chunks'>;
  vectors: VectorIndexPort;
  context: AnswerContextStore;
  chatbotId: string;
  /** Questions: the tuning half of a site, or fastify's on-topic (in scope) and off-topic (oos) sets. */
  questions: Question[];
  pathOf: (documentId: string) => string;
}

interface Gate {
  score: number;
  threshold: number;
  similarity: number | null;
  baseline: number | null;
}

interface Record {
  base: string;
  question: Question;
  gate: Gate;
  open: { cited: string[]; unanswered: boolean };
}

type Hit = SearchHit & { similarity?: number };

/** retrieval.ts reciprocalRankFusion, with a weight per list. */
function fuse(lists: number[][], weights: number[]): { id: number; score: number }[] {
  const scores = new Map<number, number>();
  lists.forEach((list, i) =>
    list.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + weights[i] / (RRF_K + rank + 1))),
  );
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

/**
 * Hybrid search as knowledge/retrieval.ts does it (words and vectors, 50 deep each, fused by
 * reciprocal rank fusion), with the vector list weighing `weight` and each hit the vector search
 * returned carrying its cosine similarity. `embedText` picks what is embedded: the searched
 * text as the retriever does (the question plus the engine's stand-in words), or the question.
 */
function hybridSearch(base: Base, weight: number, embedText: 'searched' | 'question', question: () => string) {
  return {
    async search(chatbotId: string, query: string, k: number): Promise<Hit[]> {
      const lexical = await base.store.chunks.searchLexical(chatbotId, query, 50);
      const [vector] = await embeddings.embed([embedText === 'searched' ? query : question()]);
      const semantic = await base.vectors.nearest(chatbotId, vector, 50);
      const similarity = new Map(semantic.map((h) => [h.chunkId, 1 - h.distance]));
      const fused = fuse([lexical.map((h) => h.chunkId), semantic.map((h) => h.chunkId)], [1, weight]).slice(0, k);
      const known = new Map<number, SearchHit>(lexical.map((h) => [h.chunkId, h]));
      for (const h of await base.store.chunks.byIds(fused.filter((f) => !known.has(f.id)).map((f) => f.id)))
        known.set(h.chunkId, h);
      return fused.flatMap((f) =>
        known.has(f.id) ? [{ ...known.get(f.id)!, score: f.score, similarity: similarity.get(f.id) }] : [],
      );
    },
  };
}

/** The gate exactly as the engine computes it (engine.ts): the calibrated threshold from the probes, the score of the top GATE_DEPTH hits. */
async function gateOf(
  search: { search(chatbotId: string, query: string, k: number): Promise<Hit[]> },
  base: Base,
  question: string,
  threshold: number,
) {
  const profile = await profileCache(base.context as never).get(base.chatbotId);
  const concepts = questionConcepts(question, profile, wordnet);
  const hits = await search.search(base.chatbotId, expandedQuery(question, concepts), GATE_DEPTH);
  const sims = hits.map((h) => h.similarity).filter((x): x is number => x !== undefined);
  return {
    plain: conceptRelevance(concepts, hits, profile, { threshold: 1, unknownFactor: 1, absentNounFactor: 1 }).score,
    score: conceptRelevance(concepts, hits, profile, { threshold }).score,
    similarity: sims.length ? Math.max(...sims) : null,
  };
}

async function answer(
  base: Base,
  weight: number | null,
  embedText: 'searched' | 'question' = 'searched',
): Promise<Record[]> {
  let current = '';
  const search =
    weight === null
      ? { search: (c: string, q: string, k: number) => base.store.chunks.searchLexical(c, q, k) as Promise<Hit[]> }
      : hybridSearch(base, weight, embedText, () => current);
  const open = createAnswerEngine({
    retriever: search,
    store: base.context,
    provider: createExtractiveProvider(),
    lexicon: wordnet,
    tuning: { threshold: 0 },
  });
  const probes = [];
  for (const p of PROBE_QUESTIONS) {
    current = p;
    probes.push(await gateOf(search, base, p, 1));
  }
  const threshold = calibratedThreshold(probes.map((p) => p.plain));
  const known = probes.map((p) => p.similarity).filter((x): x is number => x !== null);
  const baseline = known.length ? known.reduce((a, b) => a + b, 0) / known.length : null;
  const out: Record[] = [];
  for (const question of base.questions) {
    current = question.q;
    const request = {
      chatbotId: base.chatbotId,
      accountId: 'x',
      conversationId: 'tune',
      settings: {},
      question: question.q,
      history: [],
    };
    const a = await open.answer(request);
    const g = await gateOf(search, base, question.q, threshold);
    const gate = { score: g.score, threshold, similarity: g.similarity, baseline };
    out.push({
      base: base.name,
      question,
      gate,
      open: { cited: a.sources.map((s) => base.pathOf(s.documentId)), unanswered: a.unanswered },
    });
  }
  return out;
}

interface Rule {
  name: string;
  accept: number;
  veto: number | null;
  lexScale: number;
}

function admitted(r: Record, rule: Rule): boolean {
  const g = r.gate;
  if (rule.accept === -Infinity) return true;
  const lexical = g.score >= g.threshold * rule.lexScale && g.score > 0;
  if (g.similarity === null || g.baseline === null) return lexical;
  if (g.similarity >= g.baseline + rule.accept) return true;
  if (lexical && rule.veto !== null && g.similarity < g.baseline + rule.veto) return false;
  return lexical;
}

function outcomes(records: Record[], rule: Rule): Outcome[] {
  return records.map((r) => {
    const ok = admitted(r, rule);
    return {
      question: r.question,
      cited: ok && !r.open.unanswered ? r.open.cited : [],
      unanswered: !ok || r.open.unanswered,
      ms: 0,
      searchMs: 0,
      text: '',
      anchor: [],
    };
  });
}

const bots: Bot[] = [];
const bases: Base[] = [];
const fastify = await openAnswersDb();
try {
  const env = { OPENAI_BASE_URL: server.baseUrl, EMBEDDING_MODEL: SENTENCE_ENCODER_MODEL };
  for (const name of (process.env.EVAL_CORPUS?.split(',') as typeof CORPORA | undefined) ?? CORPORA) {
    const corpus: Corpus = loadCorpus(name);
    const started = performance.now();
    const bot = await ingestCorpus(corpus, env);
    bots.push(bot);
    const store = bot.t.app.services.store;
    const vectors = store.vectors(embeddings);
    console.log(
      `${name}: ${bot.chunks} chunks, ${await vectors.count(bot.chatbotId)} vectors, crawled and embedded in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    bases.push({
      name,
      store: store.knowledge,
      vectors,
      context: answerContextRepository(bot.t.database.db),
      chatbotId: bot.chatbotId,
      questions: corpus.questions.filter((q) => q.split === 'tuning'),
      pathOf: (id) => bot.pathOf.get(id) ?? '?',
    });
  }
  if (!process.env.TUNE_NO_FASTIFY) {
    const started = performance.now();
    const vectors = fastify.store.vectors(embeddings);
    await ingestFastifyDocs(fastify, createRetriever({ store: fastify.store.knowledge, embeddings, vectors }));
    console.log(
      `fastify: ${await vectors.count(fastify.chatbotId)} vectors, embedded in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const read = (file: string, kind: 'direct' | 'oos') =>
      (JSON.parse(readFileSync(file, 'utf8')) as { q: string }[]).map(
        (x): Question => ({ q: x.q, kind, split: 'tuning', pages: kind === 'oos' ? [] : ['*'] }) as Question,
      );
    bases.push({
      name: 'fastify',
      store: fastify.store.knowledge,
      vectors,
      context: answerContextRepository(fastify.db),
      chatbotId: fastify.chatbotId,
      questions: [...read('bench/retrieval-questions.json', 'direct'), ...read('bench/offtopic-questions.json', 'oos')],
      pathOf: () => '*',
    });
  }

  // Retrieval alone, in-scope tuning questions of the sites: an answering page among the top 3 distinct pages.
  {
    const docsOf = async (base: Base, ids: number[]) => {
      const hits = await base.store.chunks.byIds(ids);
      const byId = new Map(hits.map((h) => [h.chunkId, base.pathOf(h.documentId)]));
      return [...new Set(ids.map((id) => byId.get(id)!).filter(Boolean))];
    };
    type C = { [name: string]: number } & { n: number };
    const blank = (): C => ({ n: 0 }) as C;
    const totals = { all: blank(), rew: blank(), xlang: blank() };
    const r = (c: C) =>
      Object.entries(c)
        .filter(([k]) => k !== 'n')
        .map(([k, v]) => `${k} ${(v / c.n).toFixed(2)}`)
        .join(', ') + ` (n ${c.n})`;
    for (const base of bases.filter((b) => b.name !== 'fastify')) {
      const counts = { all: blank(), rew: blank(), xlang: blank() };
      let current = '';
      const fusedBy = new Map([1, 2, 4].map((w) => [w, hybridSearch(base, w, 'question', () => current)]));
      const profile = await profileCache(base.context as never).get(base.chatbotId);
      for (const q of base.questions.filter((x) => x.kind !== 'oos')) {
        const pages = (hits: { documentId: string }[]) => [...new Set(hits.map((h) => base.pathOf(h.documentId)))];
        const expanded = expandedQuery(q.q, questionConcepts(q.q, profile, wordnet));
        const lists: [string, string[]][] = [
          ['lexical', pages(await base.store.chunks.searchLexical(base.chatbotId, q.q, 20))],
          ['expanded', pages(await base.store.chunks.searchLexical(base.chatbotId, expanded, 20))],
        ];
        const [v] = await embeddings.embed([q.q]);
        lists.push([
          'semantic',
          await docsOf(
            base,
            (await base.vectors.nearest(base.chatbotId, v, 20)).map((h) => h.chunkId),
          ),
        ]);
        current = q.q;
        for (const [w, r] of fusedBy) lists.push([`fused x${w}`, pages(await r.search(base.chatbotId, expanded, 20))]);
        lists.push([
          'fused x1 as the retriever embeds (question + stand-ins)',
          pages(await hybridSearch(base, 1, 'searched', () => q.q).search(base.chatbotId, expanded, 20)),
        ]);
        const hit = (l: string[]) => (l.slice(0, 3).some((p) => q.pages.includes(p)) ? 1 : 0);
        const kinds: ('all' | 'rew' | 'xlang')[] = [
          'all',
          ...(q.kind === 'reworded' ? (['rew'] as const) : []),
          ...(q.kind === 'xlang' ? (['xlang'] as const) : []),
        ];
        for (const c of kinds.flatMap((k) => [counts[k], totals[k]])) {
          c.n++;
          for (const [name, l] of lists) c[name] = (c[name] ?? 0) + hit(l);
        }
      }
      console.log(`retrieval hit@3 ${base.name}: ${r(counts.all)}`);
    }
    console.log(
      `retrieval hit@3, all sites, in-scope tuning questions: ${r(totals.all)}\n  reworded: ${r(totals.rew)}\n  cross-language: ${r(totals.xlang)}`,
    );
  }

  const rules: Rule[] = [
    { name: 'words only', accept: Infinity, veto: null, lexScale: 1 },
    { name: 'gate open (ceiling)', accept: -Infinity, veto: null, lexScale: 1 },
  ];
  for (const lexScale of [1, 1.25, 1.5, 2, 100])
    for (const accept of [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, Infinity])
      for (const veto of [null, -0.05, 0, 0.05, 0.1, 0.15])
        rules.push({
          name: `lex x${lexScale} accept +${accept} veto ${veto === null ? '-' : `+${veto}`}`,
          accept,
          veto,
          lexScale,
        });

  const settings: { name: string; semanticWeight: number | null; embedText: 'searched' | 'question' }[] = [
    { name: 'lexical', semanticWeight: null, embedText: 'searched' },
  ];
  for (const semanticWeight of (process.env.TUNE_FUSION ?? '0.5,1,2,4').split(',').map(Number))
    for (const embedText of ['searched', 'question'] as const)
      settings.push({
        name: `hybrid x${semanticWeight} ${embedText === 'searched' ? 'as is' : 'question'}`,
        semanticWeight,
        embedText,
      });

  const rows: { score: number; line: string }[] = [];
  for (const setting of settings) {
    const records: Record[] = [];
    for (const base of bases) {
      records.push(...(await answer(base, setting.semanticWeight, setting.embedText)));
    }
    // How well the best similarity alone separates in-scope from out-of-scope questions (AUC), sites only.
    const sites = records.filter((r) => r.base !== 'fastify' && r.gate.similarity !== null);
    const margin = (r: Record) => r.gate.similarity! - r.gate.baseline!;
    const pos = sites.filter((r) => r.question.kind !== 'oos').map(margin);
    const neg = sites.filter((r) => r.question.kind === 'oos').map(margin);
    let auc = 0;
    for (const p of pos) for (const n of neg) auc += p > n ? 1 : p === n ? 0.5 : 0;
    auc /= pos.length * neg.length || 1;
    const aucOf = (f: (r: Record) => number, rs: Record[]) => {
      const p = rs.filter((r) => r.question.kind !== 'oos').map(f);
      const n = rs.filter((r) => r.question.kind === 'oos').map(f);
      let a = 0;
      for (const x of p) for (const y of n) a += x > y ? 1 : x === y ? 0.5 : 0;
      return a / (p.length * n.length || 1);
    };
    if (setting.semanticWeight !== null) {
      const ratio = (r: Record) => r.gate.score / r.gate.threshold;
      const parts = [
        `words ${aucOf(ratio, sites).toFixed(2)}`,
        `raw similarity ${aucOf((r) => r.gate.similarity!, sites).toFixed(2)}`,
      ];
      for (const beta of [0.5, 1, 2, 4])
        parts.push(`words + ${beta} x sim margin ${aucOf((r) => ratio(r) + beta * margin(r), sites).toFixed(2)}`);
      parts.push(
        `per site sim margin ${bases
          .filter((b) => b.name !== 'fastify')
          .map((b) =>
            aucOf(
              margin,
              sites.filter((r) => r.base === b.name),
            ).toFixed(2),
          )
          .join('/')}`,
      );
      console.log(`${setting.name}: AUC in-scope vs near-topic (sites): ${parts.join('; ')}`);
    }
    if (setting.semanticWeight !== null)
      console.log(
        `${setting.name}: AUC of (similarity - probe baseline), in-scope vs near-topic, sites: ${auc.toFixed(2)}`,
      );
    for (const rule of setting.semanticWeight === null ? rules.slice(0, 2) : rules) {
      const site = outcomes(
        records.filter((r) => r.base !== 'fastify'),
        rule,
      );
      const fast = outcomes(
        records.filter((r) => r.base === 'fastify'),
        rule,
      );
      const f = figures(site);
      const on = fast.filter((o) => o.question.kind !== 'oos');
      const off = fast.filter((o) => o.question.kind === 'oos');
      const fr = {
        on: on.filter((o) => !o.unanswered).length / (on.length || 1),
        off: off.filter((o) => o.unanswered).length / (off.length || 1),
      };
      const per = bases
        .filter((b) => b.name !== 'fastify')
        .map((b) => {
          const x = figures(
            outcomes(
              records.filter((r) => r.base === b.name),
              rule,
            ),
          );
          return `${b.name.slice(0, 5)} ${x.hit3.toFixed(2)}/${x.abstain.toFixed(2)}/${x.falseAbstain.toFixed(2)}`;
        });
      const disqualified = fast.length > 0 && (fr.off < 0.85 || fr.on < 0.9);
      const score = f.hit3 + f.hit1 + 2 * f.abstain - 2 * f.falseAbstain + f.reworded3 - (disqualified ? 10 : 0);
      const line = `${setting.name.padEnd(28)} ${rule.name.padEnd(34)} hit1 ${f.hit1.toFixed(2)} hit3 ${f.hit3.toFixed(2)} rew3 ${f.reworded3.toFixed(2)} abst ${f.abstain.toFixed(2)} false ${f.falseAbstain.toFixed(2)} | fastify on ${fr.on.toFixed(2)} off ${fr.off.toFixed(2)} | ${per.join(' | ')}`;
      rows.push({ score, line });
      if (rule.name === 'words only' || rule === rules[1]) console.log(score.toFixed(3), line);
      if (process.env.TUNE_VERBOSE && rule === rules[1])
        for (const [i, o] of site.entries())
          if (o.question.kind !== 'oos' && !o.cited.slice(0, 3).some((p) => o.question.pages.includes(p))) {
            const r = records.filter((x) => x.base !== 'fastify')[i];
            console.log(
              `   miss ${r.base} ${o.question.kind} ${o.question.q} -> ${o.unanswered ? 'refused' : o.cited.join(',')} want ${o.question.pages.join(',')} sim ${r.gate.similarity?.toFixed(2)} base ${r.gate.baseline?.toFixed(2)}`,
            );
          }
    }
  }
  console.log('--- best first');
  rows.sort((a, b) => b.score - a.score);
  for (const r of rows.slice(0, 25)) console.log(r.score.toFixed(3), r.line);
} finally {
  for (const bot of bots) await bot.t.close();
  await fastify.close();
  await closeExtractionWorkers();
  await server.close();
  wordnet.close();
}
process.exit(0);
