/**
 * Follow-ups (FollowUpPrompt): suggestions offered after an answer. At most one per chatbot is
 * the escalation prompt (clicking it asks for a person); marking one unmarks the others.
 */
import { PromptsService } from './prompts.js';
import type { ResourceDeps } from './common.js';
import type { PromptRecord } from './ports.js';
import { starterView, type StarterView } from './starters.js';

export interface FollowupView extends StarterView {
  isEscalationPrompt: boolean;
}

export const followupView = (p: PromptRecord): FollowupView => ({
  ...starterView(p),
  isEscalationPrompt: p.isEscalationPrompt,
});

export const followupsService = (deps: ResourceDeps) =>
  new PromptsService(deps, 'followups', 'Follow-up', followupView);
