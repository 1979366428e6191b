/** The lead form: when it is asked for (collectUserDetails), sent, saved or refused. */
import { signal } from '@preact/signals';
import type { WidgetConfig, WireMessage } from '../../shared/protocol.js';
import type { ConnectionModel } from './connection.js';

export type LeadState = 'hidden' | 'asking' | 'busy' | 'saved';
export type LeadFields = {
  email?: string;
  name?: string;
  phone?: string;
  customFields?: Record<string, string | number>;
};

export class LeadModel {
  readonly state = signal<LeadState>('hidden');
  /** An escalation waiting for the lead form (collectUserDetails ON_ESCALATION). */
  private escalateAfter = false;

  constructor(
    private readonly config: WidgetConfig,
    private readonly connection: ConnectionModel,
    firstVisit: boolean,
  ) {
    if (config.userData.collectUserDetails === 'BEFORE_CONVERSATION' && firstVisit) this.state.value = 'asking';
  }

  submit(conversationId: string | null, fields: LeadFields) {
    this.state.value = 'busy';
    this.connection.send({ type: 'lead.submit', ...(conversationId ? { conversationId } : {}), ...fields });
    this.connection.connect();
  }

  /** ON_ESCALATION and no e-mail known yet: ask first, escalate once saved. Returns whether it asked. */
  askBeforeEscalation(email: string | null | undefined): boolean {
    if (this.config.userData.collectUserDetails !== 'ON_ESCALATION' || email || this.state.value === 'saved')
      return false;
    this.escalateAfter = true;
    this.state.value = 'asking';
    return true;
  }

  /** DURING_CONVERSATION: asked after the first answer, while no e-mail is known. */
  answered(message: WireMessage, email: string | null | undefined) {
    if (
      message.author === 'ai' &&
      this.config.userData.collectUserDetails === 'DURING_CONVERSATION' &&
      this.state.value === 'hidden' &&
      !email
    ) {
      this.state.value = 'asking';
    }
  }

  /** Returns whether an escalation was waiting for it. */
  saved(): boolean {
    this.state.value = 'saved';
    const escalate = this.escalateAfter;
    this.escalateAfter = false;
    return escalate;
  }

  refused() {
    this.state.value = 'asking';
  }
}
