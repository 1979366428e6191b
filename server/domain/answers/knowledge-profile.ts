/**
 * What the answer engine knows about a chatbot's knowledge as a whole: in how many chunks each
 * term occurs (so the gate can weigh a question's words by how telling they are in *this* base,
 * not in the fastify docs) and which words the base uses (so a misspelt or reworded question
 * can be mapped onto the base's own vocabulary). Built from the chunks on first use and rebuilt
 * when they change (checked at most every VERSION_TTL_MS); the biggest bases are read up to
 * MAX_CHUNKS chunks, which is plenty for word statistics.
 */
import type { AnswerContextStore } from './ports.js';
import { STOPWORDS, stem, terms, words } from './text.js';

export interface KnowledgeProfile {
  /** Chunks read. */
  chunks: number;
  /** Term (stemmed, text.ts) -> chunks containing it. */
  df: Map<string, number>;
  /** Surface words (lower case, not stopwords, 3+ characters) -> chunks containing them: the vocabulary typos are corrected against. */
  vocabulary: Map<string, number>;
}

const PAGE = 2000;
export const MAX_CHUNKS = 50_000;
const VERSION_TTL_MS = 15_000;
const MAX_PROFILES = 50;

export function buildProfile(chunks: Iterable<{ title: string; heading: string; text: string }>): KnowledgeProfile {
  const df = new Map<string, number>();
  const vocabulary = new Map<string, number>();
  let n = 0;
  for (const c of chunks) {
    n++;
    const body = `${c.title}\n${c.heading}\n${c.text}`;
    for (const t of new Set(terms(body))) df.set(t, (df.get(t) ?? 0) + 1);
    for (const w of new Set(words(body)))
      if (w.length >= 3 && !STOPWORDS.has(w) && !/^\d+$/.test(w)) vocabulary.set(w, (vocabulary.get(w) ?? 0) + 1);
  }
  return { chunks: n, df, vocabulary };
}

/** Inverse document frequency of a term in the profile (a term absent from the base weighs most). */
export const idf = (profile: KnowledgeProfile, term: string) =>
  Math.log(1 + (profile.chunks + 1) / ((profile.df.get(term) ?? 0) + 0.5));

export const hasTerm = (profile: KnowledgeProfile, word: string) => profile.df.has(stem(word));

export interface ProfileCache {
  /** The chatbot's profile, or null when the store cannot provide chunk texts. */
  get(chatbotId: string): Promise<KnowledgeProfile | null>;
}

export function profileCache(store: Pick<AnswerContextStore, 'knowledgeVersion' | 'knowledgeTexts'>): ProfileCache {
  const entries = new Map<string, { version: string; checkedAt: number; profile: Promise<KnowledgeProfile> }>();

  async function read(chatbotId: string): Promise<KnowledgeProfile> {
    const rows: { title: string; heading: string; text: string }[] = [];
    let after = 0;
    while (rows.length < MAX_CHUNKS) {
      const page = await store.knowledgeTexts!(chatbotId, after, Math.min(PAGE, MAX_CHUNKS - rows.length));
      rows.push(...page);
      if (page.length === 0) break;
      after = page.at(-1)!.id;
    }
    return buildProfile(rows);
  }

  return {
    async get(chatbotId) {
      if (!store.knowledgeVersion || !store.knowledgeTexts) return null;
      const now = Date.now();
      const known = entries.get(chatbotId);
      if (known && now - known.checkedAt < VERSION_TTL_MS) return known.profile;
      const version = await store.knowledgeVersion(chatbotId);
      if (known && known.version === version) {
        known.checkedAt = now;
        return known.profile;
      }
      const profile = read(chatbotId);
      entries.delete(chatbotId);
      if (entries.size >= MAX_PROFILES) entries.delete(entries.keys().next().value!);
      entries.set(chatbotId, { version, checkedAt: now, profile });
      profile.catch(() => entries.delete(chatbotId));
      return profile;
    },
  };
}
