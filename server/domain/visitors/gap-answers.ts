/**
 * The knowledge-gap loop closes for the visitor: when the team answers a gap, the answer is
 * posted once into the conversation it came from (through the conversations service, so it has
 * its event and sequence number and reaches a connected visitor live), and e-mailed once, in the
 * chatbot's locale, to the visitor when they verified an address and are not connected.
 */
import type { TeamActions } from '../conversations/team-actions.js';
import { nowIso } from '../ids.js';
import type { JobQueue } from '../knowledge/ports.js';
import type { Store } from '../ports.js';
import { botName, localeOf, mailStrings } from './mail-text.js';
import type { Mailer, PresenceCheck } from './ports.js';

export const GAP_MAIL_JOB = 'visitors.gap-answer-mail';

export interface AnsweredGap {
  id: string;
  chatbotId: string;
  conversationId: string | null;
  question: string;
}

export class GapAnswers {
  /** Set by the gateway; until then every visitor counts as away. */
  presence: PresenceCheck = () => false;

  constructor(
    private readonly store: Store,
    private readonly conversations: TeamActions,
    private readonly queue: JobQueue,
    private readonly mailer: Mailer,
  ) {
    queue.handle(GAP_MAIL_JOB, (payload) =>
      this.sendMail(String(payload.gapId), String(payload.chatbotId), String(payload.answer)),
    );
  }

  /**
   * Called after the team answered `gap` (KnowledgeGapsService.answer). Answering the same gap
   * again posts nothing more. Returns the posted message's id, or null when nothing was posted.
   */
  async answered(
    gap: AnsweredGap,
    answer: string,
    by: { id: string; name: string | null; email: string },
  ): Promise<string | null> {
    if (!gap.conversationId) return null;
    const conversation = await this.store.conversations.get(gap.conversationId);
    if (!conversation || conversation.chatbotId !== gap.chatbotId) return null;
    const user = conversation.chatUserId ? await this.store.conversations.chatUsers.get(conversation.chatUserId) : null;
    const mail =
      !!user?.verified &&
      !!user.email &&
      !(await this.presence({ chatbotId: gap.chatbotId, chatUserId: user.id, conversationId: conversation.id }));
    const message = await this.conversations.postTeamAnswer(
      gap.chatbotId,
      conversation.id,
      { text: answer.trim(), agentId: by.id, agentName: by.name ?? by.email, meta: { knowledgeGapId: gap.id } },
      async (s, messageId) => {
        if (!(await s.visitors.gapDeliveries.claim(gap.id, conversation.id, messageId, nowIso()))) return false;
        // Queued with the post it tells of: a later answer finds the gap delivered and queues nothing.
        if (mail)
          await this.queue.enqueue(
            GAP_MAIL_JOB,
            { gapId: gap.id, chatbotId: gap.chatbotId, answer: answer.trim() },
            { within: s },
          );
        return true;
      },
    );
    return message?.id ?? null;
  }

  private async sendMail(gapId: string, chatbotId: string, answer: string) {
    const chatbot = await this.store.chatbots.get(chatbotId);
    const gap = chatbot ? await this.store.resources.knowledgeGaps.get(chatbot.id, gapId) : null;
    if (!chatbot || !gap?.conversationId) return;
    const conversation = await this.store.conversations.get(gap.conversationId);
    const user = conversation?.chatUserId
      ? await this.store.conversations.chatUsers.get(conversation.chatUserId)
      : null;
    if (!user?.verified || !user.email || (await this.store.visitors.gapDeliveries.emailed(gap.id))) return;
    const locale = localeOf(chatbot.settings);
    const t = mailStrings(locale);
    const bot = botName(chatbot);
    await this.mailer.send({
      to: user.email,
      subject: t.gapSubject(bot),
      text: `${t.gapIntro(bot)}\n\n${t.yourQuestion}:\n${gap.question}\n\n${t.answer}:\n${answer}\n`,
      language: locale,
    });
    // Marked after the send: a crash in between sends it again rather than never.
    await this.store.visitors.gapDeliveries.markEmailed(gap.id, nowIso());
  }
}
