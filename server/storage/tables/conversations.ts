/** Conversations: chat users, conversations, messages, owed answers, events, tags, gaps, prompts, instructions, members, leads. */
import type { Generated } from 'kysely';

export interface ChatUsersTable {
  id: string;
  chatbot_id: string;
  email: string | null;
  name: string | null;
  phone: string | null;
  verified: Generated<number>;
  metadata: string; // JSON
  created_at: string;
  updated_at: string;
}

export interface ConversationsTable {
  id: string;
  chatbot_id: string;
  chat_user_id: string | null;
  status: string; // OPEN | RESOLVED
  mode: string; // AI | AGENT
  escalated: Generated<number>;
  agent_id: string | null;
  /** The last event sequence number; every change adds one or more and is compare-and-set on it. */
  seq: Generated<number>;
  webhook_url: string | null;
  webhook_token: string | null;
  total_messages_read: Generated<number>;
  message_count: Generated<number>;
  last_message_at: string | null;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
}

export interface MessagesTable {
  id: string;
  conversation_id: string;
  chatbot_id: string;
  seq: number;
  author: string; // visitor | ai | agent | system
  text: string;
  sources: string; // JSON array
  agent_id: string | null;
  agent_name: string | null;
  feedback: string | null; // up | down
  feedback_comment: string | null;
  original_text: string | null;
  meta: string; // JSON
  /** The client's id for the message (Idempotency-Key, widget clientId), unique per chatbot. */
  client_message_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Visitor messages the AI still owes an answer (domain/conversations/answering.ts). */
export interface AnswersOwedTable {
  message_id: string;
  conversation_id: string;
  chatbot_id: string;
  /** Until then the answer is being written by a live process; after it, anyone may claim it. */
  lease_until: string;
  attempts: Generated<number>;
  created_at: string;
}

export interface ConversationEventsTable {
  id: string;
  conversation_id: string;
  chatbot_id: string;
  seq: number;
  type: string;
  payload: string; // JSON
  created_at: string;
}

export interface TagsTable {
  id: string;
  chatbot_id: string;
  name: string;
  color: string | null;
  created_at: string;
  updated_at: string;
}

export interface ConversationTagsTable {
  conversation_id: string;
  tag_id: string;
}

export interface KnowledgeGapsTable {
  id: string;
  chatbot_id: string;
  conversation_id: string | null;
  message_id: string | null;
  question: string;
  custom_response_id: string | null;
  answered_at: string | null;
  created_at: string;
}

export interface PromptsTable {
  id: string;
  chatbot_id: string;
  title: string;
  description: string;
  link: string | null;
  is_escalation_prompt: Generated<number>;
  position: number;
  created_at: string;
  updated_at: string;
}

export interface InstructionsTable {
  id: string;
  chatbot_id: string;
  title: string;
  description: string;
  instructions: string;
  temperature: number | null;
  created_at: string;
  updated_at: string;
}

export interface CustomResponsesTable {
  id: string;
  chatbot_id: string;
  question: string;
  answer: string;
  created_at: string;
  updated_at: string;
}

export interface ChatbotMembersTable {
  id: string;
  chatbot_id: string;
  user_id: string;
  role: string;
  invited_by_id: string | null;
  created_at: string;
}

export interface LeadsTable {
  id: string;
  chatbot_id: string;
  conversation_id: string | null;
  chat_user_id: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  custom_fields: string; // JSON
  source: string;
  created_at: string;
}

export interface ConversationsDatabase {
  chat_users: ChatUsersTable;
  conversations: ConversationsTable;
  messages: MessagesTable;
  answers_owed: AnswersOwedTable;
  conversation_events: ConversationEventsTable;
  tags: TagsTable;
  conversation_tags: ConversationTagsTable;
  knowledge_gaps: KnowledgeGapsTable;
  starters: PromptsTable;
  followups: PromptsTable;
  instructions: InstructionsTable;
  personas: InstructionsTable;
  custom_responses: CustomResponsesTable;
  chatbot_members: ChatbotMembersTable;
  leads: LeadsTable;
}
