/** Conversation starters (QuickPrompt): buttons the widget shows before the first message. */
import { PromptsService } from './prompts.js';
import type { ResourceDeps } from './common.js';
import type { PromptRecord } from './ports.js';

export interface StarterView {
  id: string;
  chatbotId: string;
  title: string;
  description: string;
  link: string | null;
  position: number;
  createdAt: string;
  updatedAt: string;
}

export const starterView = (p: PromptRecord): StarterView => ({
  id: p.id,
  chatbotId: p.chatbotId,
  title: p.title,
  description: p.description,
  link: p.link,
  position: p.position,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

export const startersService = (deps: ResourceDeps) => new PromptsService(deps, 'starters', 'Starter', starterView);
