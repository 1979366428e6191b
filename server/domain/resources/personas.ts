/** Personas (ChatbotPersona): who the assistant speaks as. The active one is the chatbot's `personaId`. */
import type { ResourceDeps } from './common.js';
import { DirectivesService } from './directives.js';
import type { DirectiveRecord } from './ports.js';

export interface PersonaView {
  id: string;
  chatbotId: string;
  title: string;
  description: string;
  instructions: string;
  /** It is the chatbot's active persona (settings.personaId). */
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

export const personaView = (d: DirectiveRecord, active: boolean): PersonaView => ({
  id: d.id,
  chatbotId: d.chatbotId,
  title: d.title,
  description: d.description,
  instructions: d.instructions,
  active,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

export const personasService = (deps: ResourceDeps) =>
  new DirectivesService(deps, 'personas', 'personaId', 'Persona', personaView);
