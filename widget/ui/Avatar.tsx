import type { ChatModel } from '../state/chat.js';
import { safeUrl } from './markdown.js';

/** The bot's icon, the agent's avatar (or the chatbot's agent icon), else an initial. */
export function Avatar({
  model,
  author,
  agent,
}: {
  model: ChatModel;
  author: string;
  agent?: { name: string | null; avatarUrl: string | null } | null;
}) {
  const icons = model.config.icons;
  const src = safeUrl((author === 'agent' ? (agent?.avatarUrl ?? icons.agent) : icons.icon) ?? '');
  const name = author === 'agent' ? (agent?.name ?? model.i18n.strings.value.chatMessage.agentName) : model.config.name;
  return (
    <span class={`avatar avatar-${author}`} aria-hidden="true">
      {src ? <img src={src} alt="" /> : (name.trim()[0] ?? '?').toUpperCase()}
    </span>
  );
}
