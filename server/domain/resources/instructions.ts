/**
 * Instructions (ChatbotPrompt): text for the language model with its own temperature (0 focused
 * to 1 creative, step 0.01; null lets the chatbot's creativity setting decide). The active one
 * is the chatbot's `promptId`.
 */
import type { ResourceDeps } from './common.js';
import { DirectivesService } from './directives.js';
import type { DirectiveRecord } from './ports.js';

/** An instruction as the API shows it: its record's fields, and whether it is the active one. */
export type InstructionView = Pick<
  DirectiveRecord,
  'id' | 'chatbotId' | 'title' | 'description' | 'instructions' | 'temperature' | 'createdAt' | 'updatedAt'
> & {
  /** It is the chatbot's active instruction (settings.promptId). */
  active: boolean;
};

export const instructionView = (d: DirectiveRecord, active: boolean): InstructionView => ({
  id: d.id,
  chatbotId: d.chatbotId,
  title: d.title,
  description: d.description,
  instructions: d.instructions,
  temperature: d.temperature,
  active,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

export const instructionsService = (deps: ResourceDeps) =>
  new DirectivesService(deps, 'instructions', 'promptId', 'Instruction', instructionView);
