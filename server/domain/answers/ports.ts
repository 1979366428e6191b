/**
 * What the answer engine needs besides retrieval: the owner's resources it reads (storage
 * implements AnswerContextStore in storage/answers.repository.ts) and the provider port its
 * two generators implement (adapters/openai-provider.ts, extractive.ts).
 */
import type { CREATIVITY, GPT_MODELS } from '../../../shared/settings.js';
import type { FollowUp } from '../conversations/ports.js';
import type { SearchHit } from '../knowledge/ports.js';
import type { AnswerMessages } from './messages.js';

export type GptModel = (typeof GPT_MODELS)[number];
export type Creativity = (typeof CREATIVITY)[number];

/** The settings the engine reads, with the defaults of shared/settings.ts when unset. */
export interface AnswerSettings {
  gptModel: GptModel;
  creativity: Creativity;
  /** Used only with creativity CUSTOM (0..2). */
  temperature: number | null;
  topK: number;
  historyCount: number;
  hideSources: boolean;
  disableSmartFollowUpPrompts: boolean;
  smartFollowUpPromptsCount: number;
  systemPrompt: string | null;
  userPrompt: string | null;
  /** localization.locale; 'en' when unset. */
  locale: string;
  promptId: string | null;
  personaId: string | null;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** ChatbotPrompt (v2 "instruction"): its instructions and temperature (0..1) drive the model. */
export interface InstructionContext {
  id: string;
  title: string;
  instructions: string;
  temperature: number | null;
}

/** ChatbotPersona: its instructions go to the model. */
export interface PersonaContext {
  id: string;
  title: string;
  instructions: string;
}

export interface CustomResponseContext {
  id: string;
  question: string;
  answer: string;
}

/** Read-only access to the chatbot's resources the engine uses; every read is scoped to the chatbot. */
export interface AnswerContextStore {
  instruction(chatbotId: string, id: string): Promise<InstructionContext | null>;
  persona(chatbotId: string, id: string): Promise<PersonaContext | null>;
  /** Every custom response of the chatbot, oldest first. */
  customResponses(chatbotId: string): Promise<CustomResponseContext[]>;
  /** The owner-defined follow-ups, in their order (position). */
  followUps(chatbotId: string): Promise<FollowUp[]>;
  /** The questions stored with these chunks at ingest (knowledge/chunk-questions.ts), by chunk id; `others`: also those of up to that many other chunks. */
  chunkQuestions?(chatbotId: string, chunkIds: number[], others?: number): Promise<Map<number, string[]>>;
  /** Changes whenever the chatbot's chunks change (count and newest id): when to rebuild its word statistics. */
  knowledgeVersion?(chatbotId: string): Promise<string>;
  /** The chatbot's chunks in id order after `afterId`, at most `limit`: what its word statistics are built from. */
  knowledgeTexts?(
    chatbotId: string,
    afterId: number,
    limit: number,
  ): Promise<{ id: number; title: string; heading: string; text: string }[]>;
}

/** Words related in meaning (synonyms, broader terms, derived forms), best first: the offline lexicon (WordNet). */
export interface Lexicon {
  /** Related words, best first; `close`: a synonym or a derived form, not a broader or associated term. */
  related(word: string): { word: string; close: boolean }[];
  /** The word's commonest part of speech (most senses), or null when the lexicon does not know it. */
  partOfSpeech?(word: string): 'noun' | 'verb' | 'adj' | 'adv' | null;
}

/** A retrieved passage as a provider sees it: numbered from 1 in the prompt. */
export interface Passage extends SearchHit {
  /** 1-based number in the prompt ([1], [2]…). */
  n: number;
  /** Share of the question's terms the passage contains (relevance.ts), when the engine computed it. */
  coverage?: number;
}

export interface GenerateInput {
  question: string;
  settings: AnswerSettings;
  /** The prompt built by prompt.ts (providers that use a language model send it as is). */
  messages: ChatMessage[];
  temperature: number;
  /** The top `topK` passages, best first. */
  passages: Passage[];
  /** Further hits after the passages ("related passages", numbered on from topK + 1): suggestions, and the built-in answerer's wider reading. */
  related: Passage[];
  /** True when the relevance gate (relevance.ts) says the knowledge covers the question. */
  relevant: boolean;
  /** The question's terms and the base's words standing in for them (expansion.ts) with their weight (1: the question's own), when the engine computed them. */
  terms?: ReadonlyMap<string, number>;
  /** The same, grouped per question word (expansion.ts concepts): a stand-in covers its word, nothing new. */
  concepts?: readonly { word: string; term: string; alternatives: ReadonlyMap<string, number> }[];
  /** Smart follow-ups wanted (0 when disabled). */
  followUpCount: number;
  /** The locale's own strings (unavailable reply, honest reply…). */
  strings: AnswerMessages;
  onToken?: (text: string) => void;
  signal?: AbortSignal;
}

export interface GenerateOutput {
  /** The answer text (already streamed through onToken when the provider streams). */
  text: string;
  /** False when the provider could not answer from the knowledge (a knowledge gap). */
  answered: boolean;
  /** Numbers (Passage.n) of the passages the answer used; null: not known (the engine decides). */
  used: number[] | null;
  /** Smart follow-ups: suggested next questions or topics. */
  followUps: FollowUp[];
  provider: 'openai' | 'built-in' | 'unavailable';
  model: string | null;
}

export interface AnswerProvider {
  /** `openai` or `built-in`: what Answer.provider says when this provider answered. */
  readonly name: 'openai' | 'built-in';
  /**
   * True when the provider sends the instructions to a model, so its output is checked for
   * quoting them (engine.ts). The built-in answerer only ever quotes the knowledge.
   */
  readonly seesInstructions: boolean;
  /** How a language model returns its metadata (prompt.ts OutputFormat); the prompt asks for that form. */
  readonly outputFormat?: 'json' | 'marker';
  generate(input: GenerateInput): Promise<GenerateOutput>;
}
