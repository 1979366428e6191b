/** The resource services, built over one Store, the chatbots service and the cursor codec. */
import type { ChatbotsService } from '../chatbots.service.js';
import type { CursorCodec } from '../cursor.js';
import type { Store } from '../ports.js';
import { CustomResponsesService } from './custom-responses.js';
import { followupsService } from './followups.js';
import { instructionsService } from './instructions.js';
import { type GapAnsweredHook, KnowledgeGapsService } from './knowledge-gaps.js';
import { LeadsService } from './leads.js';
import { MembersService } from './members.js';
import { personasService } from './personas.js';
import { startersService } from './starters.js';
import { TagsService } from './tags.js';

export function createResourceServices(
  store: Store,
  chatbots: ChatbotsService,
  cursors: CursorCodec,
  hooks: { onGapAnswered?: GapAnsweredHook } = {},
) {
  const deps = { store, chatbots, cursors };
  return {
    starters: startersService(deps),
    followups: followupsService(deps),
    instructions: instructionsService(deps),
    personas: personasService(deps),
    customResponses: new CustomResponsesService(deps),
    tags: new TagsService(deps),
    members: new MembersService(deps),
    leads: new LeadsService(deps),
    knowledgeGaps: new KnowledgeGapsService(deps, hooks.onGapAnswered),
  };
}
