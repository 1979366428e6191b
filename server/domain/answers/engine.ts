/**
 * The answer engine (conversations/ports.ts AnswerEngine): a visitor's question in, an answer
 * with its sources and follow-ups out. In order:
 *   1. a matching custom response is returned verbatim (custom-responses.ts); small talk gets
 *      the locale's short reply (small-talk.ts), with either provider and before any search;
 *   2. retrieval finds the passages (topK for the answer, a few more for the relevance gate
 *      and follow-ups), and the gate (relevance.ts's coverage score, weighed with other signs by
 *      gate-model.ts) judges whether they cover the question;
 *   3. the provider answers: a language model (openai-provider.ts) or the built-in extractive
 *      answerer (extractive.ts), streaming through onToken;
 *   4. the output filter (leak-guard.ts) withholds an answer quoting the instructions, for
 *      providers that saw them;
 *   5. sources (unless hideSources) link straight to the place; follow-ups are the smart ones
 *      (unless disabled) then the owner's; `unanswered` marks a knowledge gap.
 * Provider failures end in the locale's unavailable reply, never in an exception; only the
 * caller's own abort (and storage failures) reject.
 */
import { citationUrl } from '../knowledge/chunk.js';
import { pageKey } from '../knowledge/crawl/url.js';
import type { SearchHit } from '../knowledge/ports.js';
import type { Answer, AnswerEngine, AnswerRequest, FollowUp, SourceRef } from '../conversations/ports.js';
import { matchCustomResponse } from './custom-responses.js';
import { storedFollowUps, type FollowUpVerdict } from './follow-ups.js';
import { LeakGuard, leaksSecrets } from './leak-guard.js';
import { messagesFor, type AnswerMessages } from './messages.js';
import type { AnswerContextStore, AnswerProvider, GenerateOutput, Lexicon, Passage } from './ports.js';
import { buildPrompt, readSettings, temperatureFor } from './prompt.js';
import { expandedQuery, questionConcepts, type Concept, type ExpansionOptions } from './expansion.js';
import { calibratedThreshold, HEDGE_RATIO, PROBE_QUESTIONS, type CalibrationOptions } from './calibration.js';
import { profileCache, type KnowledgeProfile } from './knowledge-profile.js';
import { conceptRelevance, GATE_DEPTH, relevance, type GateOptions } from './relevance.js';
import { dependsOnPrevious, hasNoTopic } from './follow-up-question.js';
import { gateFeatures } from './gate-features.js';
import { GATE_CUT, GATE_HEDGE_CUT, gateProbability } from './gate-model.js';
import { greetingLike, smallTalk } from './small-talk.js';

/** The retrieval the engine needs (knowledge/retrieval.ts Retriever satisfies it). */
export interface PassageSearch {
  search(chatbotId: string, query: string, k: number): Promise<SearchHit[]>;
}

export interface AnswerEngineOptions {
  retriever: PassageSearch;
  store: AnswerContextStore;
  provider: AnswerProvider;
  /** The engine's own strings per locale; messages.ts by default. */
  messages?: (locale: string) => AnswerMessages;
  /** Hears unexpected provider failures (logging). */
  onError?: (err: unknown) => void;
  /** Words related in meaning (WordNet), for questions worded unlike the knowledge. */
  lexicon?: Lexicon | null;
  /** The calibrated gate's threshold and the expansion's weights (defaults: relevance.ts, expansion.ts). */
  tuning?: {
    threshold?: number;
    calibration?: CalibrationOptions;
    expansion?: ExpansionOptions;
    gate?: GateOptions;
    /** The learned decision's cuts (gate-model.ts), or false for the coverage score against the threshold alone. */
    learned?: { cut?: number; hedge?: number } | false;
  };
}

interface Searched {
  concepts: Concept[];
  hits: SearchHit[];
  gate: ReturnType<typeof relevance>;
  /** The text searched when it is not the message alone (joined with the previous question). */
  query?: string;
}

/** 2: covered, 1: covered but not sure, 0: not covered. */
const certainty = (s: Searched) => (s.gate.unsure ? 1 : s.gate.relevant ? 2 : 0);

/** A follow-up of a follow-up ("how much is it?" after "and to Germany?" after "shipping costs?") reaches back this far. */
const MAX_CONTEXT_LEVELS = 2;

/** Hits read beyond topK and the gate when smart follow-ups are wanted ("related passages"). */
const RELATED_EXTRA = 6;

/** Where a hit links to: a video at its second, a PDF at its page, a web page at its quote. */
export function sourceLink(hit: Pick<SearchHit, 'url' | 'text' | 'headingPath' | 'location'>): string | null {
  if (!hit.url) return null;
  return citationUrl(hit.url, {
    index: 0,
    text: hit.text,
    tokenCount: 0,
    headingPath: hit.headingPath,
    location: hit.location,
  });
}

/** One source per page (per document, and per URL: one page held by two sources or two spellings), at its best passage, in the order given. */
export function toSources(hits: SearchHit[]): SourceRef[] {
  const seen = new Set<string>();
  const out: SourceRef[] = [];
  for (const hit of hits) {
    const page = hit.url ? pageKey(hit.url) : null;
    if (seen.has(hit.documentId) || (page && seen.has(page))) continue;
    seen.add(hit.documentId);
    if (page) seen.add(page);
    out.push({
      documentId: hit.documentId,
      title: hit.title,
      url: hit.url,
      link: sourceLink(hit),
      location: hit.location,
      score: hit.score,
    });
  }
  return out;
}

export function createAnswerEngine(options: AnswerEngineOptions): AnswerEngine & { readonly provider: string } {
  const { retriever, store, provider } = options;
  const stringsFor = options.messages ?? messagesFor;
  const profiles = profileCache(store);
  const lexicon = options.lexicon ?? null;
  const fixedThreshold = options.tuning?.threshold;
  // Per knowledge version: a new profile object comes with every change of the chunks.
  const thresholds = new WeakMap<KnowledgeProfile, Promise<number>>();
  const hedgeRatio = options.tuning?.calibration?.hedgeRatio ?? HEDGE_RATIO;
  const tunedCut = options.tuning?.learned;
  // A cut given without a hedge cut means no hedge band.
  const learned =
    tunedCut === false
      ? null
      : {
          cut: tunedCut?.cut ?? GATE_CUT,
          hedge: tunedCut?.hedge ?? tunedCut?.cut ?? GATE_HEDGE_CUT,
        };
  const gateOf = (
    question: string,
    concepts: Concept[],
    hits: SearchHit[],
    profile: KnowledgeProfile,
    threshold: number,
  ) => {
    const gate = conceptRelevance(concepts, hits, profile, { ...options.tuning?.gate, threshold });
    if (learned) {
      // The learned decision (gate-model.ts) over the coverage score and what it leaves out.
      if (!(gate.score > 0)) return { ...gate, relevant: false };
      const p = gateProbability(gateFeatures(question, concepts, hits, profile, gate, threshold));
      if (p >= learned.cut) return { ...gate, relevant: true };
      return p >= learned.hedge ? { ...gate, relevant: true, unsure: true } : { ...gate, relevant: false };
    }
    if (gate.relevant || gate.score < threshold * hedgeRatio || !(gate.score > 0)) return gate;
    return { ...gate, relevant: true, unsure: true };
  };

  // Follow-up questions' verdicts per knowledge version (follow-ups.ts).
  const followUpCache = new WeakMap<KnowledgeProfile, Map<string, Promise<FollowUpVerdict>>>();
  const followUpVerdicts = (profile: KnowledgeProfile | null) => {
    if (!profile) return new Map<string, Promise<FollowUpVerdict>>();
    let m = followUpCache.get(profile);
    if (!m) followUpCache.set(profile, (m = new Map()));
    return m;
  };

  /** The gate's threshold for this base: what unrelated questions score here (calibration.ts). */
  function thresholdFor(chatbotId: string, profile: KnowledgeProfile): Promise<number> {
    if (fixedThreshold !== undefined) return Promise.resolve(fixedThreshold);
    let known = thresholds.get(profile);
    if (!known) {
      known = (async () => {
        const scores: number[] = [];
        for (const probe of PROBE_QUESTIONS) {
          const concepts = questionConcepts(probe, profile, lexicon, options.tuning?.expansion);
          const hits = await retriever.search(chatbotId, expandedQuery(probe, concepts), GATE_DEPTH);
          // The plain coverage: the factors for unknown and absent words are the visitor question's own.
          scores.push(
            conceptRelevance(concepts, hits, profile, {
              ...options.tuning?.gate,
              threshold: 1,
              unknownFactor: 1,
              absentNounFactor: 1,
            }).score,
          );
        }
        return calibratedThreshold(scores, options.tuning?.calibration);
      })();
      thresholds.set(profile, known);
      known.catch(() => thresholds.delete(profile));
    }
    return known;
  }

  /** One search: the question's concepts, the hits for it with the stand-in words, the gate's verdict. */
  async function search(
    chatbotId: string,
    query: string,
    profile: KnowledgeProfile | null,
    depth: number,
  ): Promise<Searched> {
    const concepts = questionConcepts(query, profile, lexicon, options.tuning?.expansion);
    // One search with the stand-in words added: as good on the eval's tuning halves as fusing it
    // with the question's own ranking, at half the cost.
    const hits = await retriever.search(chatbotId, expandedQuery(query, concepts), depth);
    const gate = profile
      ? gateOf(query, concepts, hits, profile, await thresholdFor(chatbotId, profile))
      : relevance(query, hits);
    return { concepts, hits, gate };
  }

  /**
   * The search for a message in its conversation. A message that depends on the previous
   * question (follow-up-question.ts) is also searched joined with it, and the better of the two
   * wins: the joined one only when it is more certainly covered (covered, covered but not sure, not covered),
   * or as certainly when the message names no topic of its own ("What is the cost?").
   * The previous question is the last visitor message that is not small talk, and only when its
   * own search is covered: a refused or off-topic question carries no topic over.
   */
  async function searchInContext(
    chatbotId: string,
    question: string,
    history: AnswerRequest['history'],
    profile: KnowledgeProfile | null,
    depth: number,
    level = 0,
  ): Promise<Searched> {
    const alone = await search(chatbotId, question, profile, depth);
    const noTopic = hasNoTopic(question);
    if ((certainty(alone) === 2 && !noTopic) || level >= MAX_CONTEXT_LEVELS || !dependsOnPrevious(question))
      return alone;
    const visitor = history.filter((m) => m.author === 'visitor');
    let i = visitor.length - 1;
    while (i >= 0 && greetingLike(visitor[i].text)) i--;
    if (i < 0) return alone;
    const earlier = history.slice(0, history.lastIndexOf(visitor[i]));
    const previous = await searchInContext(chatbotId, visitor[i].text, earlier, profile, GATE_DEPTH, level + 1);
    if (!previous.gate.relevant) return alone;
    const joined = await search(chatbotId, `${question} ${previous.query ?? visitor[i].text}`, profile, depth);
    const better = noTopic ? certainty(joined) >= certainty(alone) : certainty(joined) > certainty(alone);
    return better ? { ...joined, query: `${question} ${previous.query ?? visitor[i].text}` } : alone;
  }

  return {
    provider: provider.name,
    async answer(request: AnswerRequest): Promise<Answer> {
      const settings = readSettings(request.settings ?? {});
      const strings = stringsFor(settings.locale);
      const [customs, ownerFollowUps, instruction, persona] = await Promise.all([
        store.customResponses(request.chatbotId),
        store.followUps(request.chatbotId),
        settings.promptId ? store.instruction(request.chatbotId, settings.promptId) : null,
        settings.personaId ? store.persona(request.chatbotId, settings.personaId) : null,
      ]);

      const custom = matchCustomResponse(request.question, customs);
      if (custom) {
        request.onToken?.(custom.response.answer);
        return {
          text: custom.response.answer,
          sources: [],
          followUps: ownerFollowUps,
          unanswered: false,
          customResponseId: custom.response.id,
          provider: 'custom-response',
          model: null,
        };
      }

      const followUpCount = settings.disableSmartFollowUpPrompts ? 0 : settings.smartFollowUpPromptsCount;
      const talk = smallTalk(request.question);
      if (talk) {
        // Small talk gets the same short localised reply whichever provider is configured: it is
        // not searched for, costs no model call, and is no gap in the knowledge.
        request.onToken?.(strings[talk]);
        return {
          text: strings[talk],
          sources: [],
          followUps: ownerFollowUps,
          unanswered: false,
          customResponseId: null,
          provider: 'built-in',
          model: null,
        };
      }
      const depth = Math.max(settings.topK, GATE_DEPTH) + (followUpCount ? RELATED_EXTRA : 0);
      const profile = await profiles.get(request.chatbotId);
      const { concepts, hits, gate } = await searchInContext(
        request.chatbotId,
        request.question,
        request.history ?? [],
        profile,
        depth,
      );
      const numbered: Passage[] = hits.map((h, i) => ({ ...h, n: i + 1, coverage: gate.perHit[i] }));
      const passages = numbered.slice(0, settings.topK);
      const related = numbered.slice(settings.topK);

      const prompt = provider.seesInstructions
        ? buildPrompt({
            question: request.question,
            history: request.history ?? [],
            passages,
            instruction,
            persona,
            settings,
            followUpCount,
            strings,
            relevant: gate.relevant,
            format: provider.outputFormat,
          })
        : { messages: [], secrets: [] };
      const guard = prompt.secrets.length ? new LeakGuard(prompt.secrets) : null;
      // Close but not sure (calibration.ts HEDGE_RATIO): the built-in answer opens by saying so. A
      // model reads the passages and judges for itself.
      const hedge = gate.unsure && !provider.seesInstructions ? `${strings.notSure} ` : '';
      let hedged = false;
      const visitorToken =
        hedge && request.onToken
          ? (text: string) => {
              if (!hedged && text !== strings.noInformation) {
                hedged = true;
                request.onToken!(hedge);
              }
              request.onToken!(text);
            }
          : request.onToken;
      const onToken = visitorToken
        ? guard
          ? (text: string) => {
              const safe = guard.push(text);
              if (safe) visitorToken!(safe);
            }
          : visitorToken
        : undefined;

      let out: GenerateOutput;
      try {
        out = await provider.generate({
          question: request.question,
          settings,
          messages: prompt.messages,
          temperature: temperatureFor(settings, instruction),
          passages,
          related,
          relevant: gate.relevant,
          terms: standInWeights(concepts),
          concepts,
          followUpCount,
          strings,
          onToken: guard && !request.onToken ? (text) => void guard.push(text) : onToken,
          signal: request.signal,
        });
      } catch (err) {
        if (request.signal?.aborted) throw err;
        options.onError?.(err);
        onToken?.(strings.unavailable);
        out = {
          text: strings.unavailable,
          answered: true,
          used: [],
          followUps: [],
          provider: 'unavailable',
          model: null,
        };
      }

      if (guard && (guard.leaked || leaksSecrets(out.text, prompt.secrets))) {
        // The text quoted the instructions: none of it is kept, the visitor gets a refusal.
        request.onToken?.(strings.cannotShareInstructions);
        return {
          text: strings.cannotShareInstructions,
          sources: [],
          followUps: ownerFollowUps,
          unanswered: false,
          customResponseId: null,
          provider: out.provider,
          model: out.model,
        };
      }
      const rest = guard?.flush();
      if (rest) request.onToken?.(rest);

      if (hedge && out.answered && out.provider !== 'unavailable') out = { ...out, text: hedge + out.text };
      const answered = out.provider === 'unavailable' || out.answered;
      let sources: SourceRef[] = [];
      if (!settings.hideSources && out.provider !== 'unavailable' && out.answered) {
        const used = out.used ?? (gate.relevant ? passages.map((p) => p.n) : []);
        sources = toSources(numbered.filter((p) => used.includes(p.n)));
      }
      let smart: FollowUp[] =
        out.answered && out.provider !== 'unavailable' ? out.followUps.slice(0, followUpCount) : [];
      if (
        !provider.seesInstructions &&
        out.answered &&
        out.provider === 'built-in' &&
        followUpCount > 0 &&
        store.chunkQuestions
      ) {
        // The built-in answerer suggests the questions stored with the related chunks, each checked against the knowledge.
        const usedChunks = new Set(numbered.filter((p) => (out.used ?? []).includes(p.n)).map((p) => p.chunkId));
        const verdicts = followUpVerdicts(profile);
        smart = await storedFollowUps({
          question: request.question,
          passages: numbered,
          used: usedChunks,
          count: followUpCount,
          questionsOf: (ids, others) => store.chunkQuestions!(request.chatbotId, ids, others),
          check: (q) => {
            let v = verdicts.get(q);
            if (!v) {
              v = search(request.chatbotId, q, profile, GATE_DEPTH).then((r) => ({
                covered: r.gate.relevant && !(r.gate as { unsure?: boolean }).unsure,
                top: r.hits[0]?.chunkId ?? null,
              }));
              verdicts.set(q, v);
              v.catch(() => verdicts.delete(q));
            }
            return v;
          },
        });
      }
      return {
        text: out.text,
        sources,
        followUps: [...smart, ...ownerFollowUps],
        // A greeting the small-talk phrases missed ("Hello everyone, nice to meet you!") asks the
        // knowledge nothing: a model's "not covered" on it is no gap.
        unanswered: !answered && !greetingLike(request.question),
        unsure: hedge !== '' && out.text.startsWith(hedge),
        customResponseId: null,
        provider: out.provider,
        model: out.model,
      };
    },
  };
}

/** Every term of the question's concepts with its best weight (the question's own words 1). */
function standInWeights(concepts: Concept[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of concepts) for (const [t, w] of c.alternatives) out.set(t, Math.max(w, out.get(t) ?? 0));
  return out;
}
