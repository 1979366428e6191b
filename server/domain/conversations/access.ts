/** Who may reach a conversation. */
import type { AuthContext } from '../auth.js';
import type { ChatbotsService } from '../chatbots.service.js';
import { notFound } from '../errors.js';
import type { ChatbotRecord, Store } from '../ports.js';
import type { ConversationRecord } from './ports.js';

/** A team member's token reaches the conversation through its chatbot; 404 when either is out of reach. */
export async function reachConversation(
  store: Store,
  chatbots: ChatbotsService,
  auth: AuthContext,
  chatbotId: string,
  threadId: string,
): Promise<{ chatbot: ChatbotRecord; conversation: ConversationRecord }> {
  const chatbot = await chatbots.reach(auth, chatbotId);
  const conversation = await store.conversations.get(threadId);
  if (!conversation || conversation.chatbotId !== chatbot.id) throw notFound('Conversation');
  return { chatbot, conversation };
}

/** A conversation of this chatbot, for callers that checked who acts already (the widget's visitor, a gap's answer). */
export async function conversationOfChatbot(
  store: Store,
  chatbotId: string,
  threadId: string,
): Promise<{ chatbot: ChatbotRecord; conversation: ConversationRecord }> {
  const conversation = await store.conversations.get(threadId);
  const chatbot = await store.chatbots.get(chatbotId);
  if (!conversation || !chatbot || conversation.chatbotId !== chatbot.id) throw notFound('Conversation');
  return { chatbot, conversation };
}
