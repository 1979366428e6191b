/**
 * What the owner's resources need from storage, in domain terms: starters, follow-ups,
 * instructions, personas, custom responses, tags, members, leads and knowledge gaps.
 * `storage/resources.repository.ts` implements it for SQLite and PostgreSQL. Every read takes
 * the chatbot id, so a row of another chatbot is never returned by id alone.
 */
import type { Role } from '../../../shared/scopes.js';
import type { Page, PageRequest } from '../paging.js';
import type { UserRecord } from '../records.js';

/** A conversation starter (QuickPrompt) or a follow-up (FollowUpPrompt). */
export interface PromptRecord {
  id: string;
  chatbotId: string;
  title: string;
  /** The message sent when a visitor clicks it. */
  description: string;
  /** When set, a click opens the link instead of sending the message. */
  link: string | null;
  /** Follow-ups only: clicking it asks for a person. Always false for starters. */
  isEscalationPrompt: boolean;
  position: number;
  createdAt: string;
  updatedAt: string;
}

export type PromptPatch = Partial<
  Pick<PromptRecord, 'title' | 'description' | 'link' | 'isEscalationPrompt' | 'position'>
>;

export interface PromptStore {
  /** Every one of the chatbot's, by position, then oldest first. */
  list(chatbotId: string): Promise<PromptRecord[]>;
  get(chatbotId: string, id: string): Promise<PromptRecord | null>;
  count(chatbotId: string): Promise<number>;
  /** The highest position in use, or null when there is none. */
  maxPosition(chatbotId: string): Promise<number | null>;
  insert(prompt: PromptRecord): Promise<void>;
  update(id: string, patch: PromptPatch, at: string): Promise<void>;
  /** Clears isEscalationPrompt on every prompt of the chatbot but `exceptId`. */
  clearEscalation(chatbotId: string, exceptId: string, at: string): Promise<void>;
  delete(id: string): Promise<void>;
}

/** An instruction (ChatbotPrompt) or a persona (ChatbotPersona; temperature always null). */
export interface DirectiveRecord {
  id: string;
  chatbotId: string;
  title: string;
  description: string;
  /** Text given to the language model. */
  instructions: string;
  /** Instructions: 0 (focused) to 1 (creative); null lets the chatbot's creativity decide. */
  temperature: number | null;
  createdAt: string;
  updatedAt: string;
}

export type DirectivePatch = Partial<Pick<DirectiveRecord, 'title' | 'description' | 'instructions' | 'temperature'>>;

export interface DirectiveStore {
  /** Every one of the chatbot's, newest first. */
  list(chatbotId: string): Promise<DirectiveRecord[]>;
  get(chatbotId: string, id: string): Promise<DirectiveRecord | null>;
  count(chatbotId: string): Promise<number>;
  insert(directive: DirectiveRecord): Promise<void>;
  update(id: string, patch: DirectivePatch, at: string): Promise<void>;
  delete(id: string): Promise<void>;
}

export interface CustomResponseRecord {
  id: string;
  chatbotId: string;
  question: string;
  /** Returned verbatim when a visitor asks the question. */
  answer: string;
  createdAt: string;
  updatedAt: string;
}

export interface TagRecord {
  id: string;
  chatbotId: string;
  name: string;
  color: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MemberRecord {
  id: string;
  chatbotId: string;
  userId: string;
  /** Mirrors the user's dashboard role (see members.ts). */
  role: Role;
  invitedById: string | null;
  createdAt: string;
}

export interface LeadRecord {
  id: string;
  chatbotId: string;
  conversationId: string | null;
  chatUserId: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  /** Values of the chatbot's `leadFields`, by key, already validated. */
  customFields: Record<string, string | number>;
  /** Where it was captured: `widget`, `escalation`, `api`… */
  source: string;
  createdAt: string;
}

export interface LeadFilter {
  /** createdAt range, ISO-8601: `from` inclusive, `to` exclusive. */
  from?: string;
  to?: string;
}

export interface KnowledgeGapRecord {
  id: string;
  chatbotId: string;
  conversationId: string | null;
  messageId: string | null;
  question: string;
  /** The custom response that answers it, once answered. */
  customResponseId: string | null;
  answeredAt: string | null;
  createdAt: string;
}

export interface ResourcesStore {
  starters: PromptStore;
  followups: PromptStore;
  instructions: DirectiveStore;
  personas: DirectiveStore;
  customResponses: {
    page(chatbotId: string, page: PageRequest): Promise<Page<CustomResponseRecord>>;
    /** Every one of the chatbot's, newest first (the answer engine matches questions against them). */
    all(chatbotId: string): Promise<CustomResponseRecord[]>;
    get(chatbotId: string, id: string): Promise<CustomResponseRecord | null>;
    insert(response: CustomResponseRecord): Promise<void>;
    update(id: string, patch: Partial<Pick<CustomResponseRecord, 'question' | 'answer'>>, at: string): Promise<void>;
    delete(id: string): Promise<void>;
  };
  tags: {
    /** Every tag of the chatbot, by name. */
    list(chatbotId: string): Promise<TagRecord[]>;
    get(chatbotId: string, id: string): Promise<TagRecord | null>;
    /** The tag of this name, compared without regard to case. */
    byName(chatbotId: string, name: string): Promise<TagRecord | null>;
    count(chatbotId: string): Promise<number>;
    /** Conversations carrying each tag (tags without any are absent). */
    conversationCounts(tagIds: string[]): Promise<Map<string, number>>;
    /** False when the name is already taken in the chatbot (nothing written). */
    insert(tag: TagRecord): Promise<boolean>;
    /** False when the new name is already taken in the chatbot (nothing written). */
    update(id: string, patch: Partial<Pick<TagRecord, 'name' | 'color'>>, at: string): Promise<boolean>;
    /** Removes the tag and takes it off every conversation. */
    delete(id: string): Promise<void>;
  };
  members: {
    /** The chatbot's members with their users, most recently added first. */
    list(chatbotId: string): Promise<{ member: MemberRecord; user: UserRecord }[]>;
    get(chatbotId: string, id: string): Promise<{ member: MemberRecord; user: UserRecord } | null>;
    byUser(chatbotId: string, userId: string): Promise<MemberRecord | null>;
    insert(member: MemberRecord): Promise<void>;
    delete(id: string): Promise<void>;
    /** The account's user with this e-mail (lower-cased), if any. */
    userByEmail(accountId: string, email: string): Promise<UserRecord | null>;
    /** Sets a user's dashboard role and the role mirrored on each of their memberships. */
    setUserRole(userId: string, role: Role): Promise<void>;
    /** Sets the user's display name (null: none). */
    setUserName(userId: string, name: string | null): Promise<void>;
  };
  leads: {
    /** Newest first. */
    page(chatbotId: string, page: PageRequest, filter: LeadFilter): Promise<Page<LeadRecord>>;
    get(chatbotId: string, id: string): Promise<LeadRecord | null>;
    /** The leads of these ids that belong to the chatbot. */
    many(chatbotId: string, ids: string[]): Promise<LeadRecord[]>;
    insert(lead: LeadRecord): Promise<void>;
    delete(ids: string[]): Promise<void>;
  };
  knowledgeGaps: {
    /** Newest first; `answered` filters on whether an answer was given. */
    page(chatbotId: string, page: PageRequest, filter: { answered?: boolean }): Promise<Page<KnowledgeGapRecord>>;
    get(chatbotId: string, id: string): Promise<KnowledgeGapRecord | null>;
    insert(gap: KnowledgeGapRecord): Promise<void>;
    /** Points the gap at its answer, only while it still points at `was`; false when it no longer did. */
    markAnswered(id: string, customResponseId: string, at: string, was: string | null): Promise<boolean>;
    delete(id: string): Promise<void>;
  };
}
