/** The conversation: welcome, messages (streamed answers included), notices, typing, follow-ups. */
import { useEffect, useRef } from 'preact/hooks';
import type { WidgetPrompt, WireMessage } from '../../shared/protocol.js';
import type { ChatModel } from '../state/chat.js';
import type { Item } from '../state/conversation.js';
import { launcherText } from '../i18n/launcher.js';
import { fill } from '../i18n/locales.js';
import { ThumbDownIcon, ThumbUpIcon } from './icons.js';
import { ExternalLink, Markdown, safeUrl } from './markdown.js';
import { relativeTime } from './time.js';
import { Avatar } from './Avatar.js';
import { LeadForm } from './LeadForm.js';

export function Messages({ model, openLink }: { model: ChatModel; openLink(url: string): void }) {
  const s = model.i18n.strings.value;
  const items = model.conversation.items.value;
  const typing = model.conversation.typing.value;
  const end = useRef<HTMLDivElement>(null);
  const count =
    items.length +
    (typing ? 1 : 0) +
    (items.at(-1)?.kind === 'stream' ? (items.at(-1) as { text: string }).text.length : 0);
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [count, model.conversation.followUps.value.length]);
  // null: the untouched default, written in the visitor's language; '': the owner wants none.
  const welcome = model.config.appearance.welcomeMessage ?? launcherText(model.i18n.locale.value).welcome;
  const starters = !items.length && model.ui.view.value === 'chat' ? model.config.starters : [];
  return (
    <div class="messages" role="log" aria-live="polite" aria-label={s.ui.messageList}>
      {welcome && (
        <div class="msg msg-ai">
          <Avatar model={model} author="ai" />
          <div class="bubble-text" dir="auto">
            <Markdown text={welcome} />
          </div>
        </div>
      )}
      {items.map((item) => (
        <ItemView
          key={
            item.kind === 'message'
              ? item.message.clientId && item.message.author === 'visitor'
                ? item.message.clientId
                : item.message.id
              : item.id
          }
          model={model}
          item={item}
        />
      ))}
      {typing && (
        <div class="typing" role="status">
          <span class="dots" aria-hidden="true">
            <i />
            <i />
            <i />
          </span>
          <span class="sr">{typing.who === 'ai' ? s.ui.thinking : fill(s.ui.typing, { name: typing.name })}</span>
        </div>
      )}
      {starters.length > 0 && (
        <Prompts model={model} prompts={starters} kind="starter" openLink={openLink} label={s.ui.suggestions} />
      )}
      {model.conversation.followUps.value.length > 0 && (
        <Prompts
          model={model}
          prompts={model.conversation.followUps.value}
          kind="followup"
          openLink={openLink}
          label={s.ui.suggestions}
        />
      )}
      {(model.lead.state.value === 'asking' || model.lead.state.value === 'busy') &&
        model.config.userData.collectUserDetails !== 'BEFORE_CONVERSATION' && <LeadForm model={model} />}
      {model.lead.state.value === 'saved' && <p class="notice">{s.ui.leadSaved}</p>}
      <div ref={end} />
    </div>
  );
}

function ItemView({ model, item }: { model: ChatModel; item: Item }) {
  if (item.kind === 'notice') return <p class={`notice notice-${item.change}`}>{item.text}</p>;
  if (item.kind === 'stream') {
    return (
      <div class="msg msg-ai streaming" aria-busy="true">
        <Avatar model={model} author="ai" />
        {item.text ? (
          <div class="bubble-text" dir="auto">
            <Markdown text={item.text} />
          </div>
        ) : (
          // Its start was missed (a reload or a reconnect mid-answer): dots until the whole answer arrives.
          <>
            <span class="dots" aria-hidden="true">
              <i />
              <i />
              <i />
            </span>
            <span class="sr">{model.i18n.strings.value.ui.thinking}</span>
          </>
        )}
      </div>
    );
  }
  return <MessageView model={model} message={item.message} pending={item.pending} />;
}

function MessageView({ model, message, pending }: { model: ChatModel; message: WireMessage; pending?: boolean }) {
  const s = model.i18n.strings.value;
  const mine = message.author === 'visitor';
  const cls = `msg msg-${message.author}${pending ? ' pending' : ''}`;
  const name = mine
    ? null
    : message.author === 'agent'
      ? (message.agent?.name ?? message.name ?? s.chatMessage.agentName)
      : null;
  const sources = model.config.chat.hideSources ? [] : message.sources;
  return (
    <div class={cls}>
      {!mine && message.author !== 'system' && <Avatar model={model} author={message.author} agent={message.agent} />}
      <div class="msg-body">
        {name && <div class="author">{name}</div>}
        <div class="bubble-text" dir="auto">
          {mine || message.author === 'system' ? <p class="plain">{message.text}</p> : <Markdown text={message.text} />}
        </div>
        {sources.length > 0 && (
          <div class="sources">
            <span class="sources-label">{s.ui.sources}</span>
            <ul>
              {sources.map((src) => {
                const href = safeUrl(src.link ?? src.url ?? '');
                const heading = src.headingPath.at(-1);
                const label =
                  [src.title, heading !== src.title ? heading : null].filter(Boolean).join(' › ') || href || '';
                return <li>{href ? <ExternalLink href={href}>{label}</ExternalLink> : <span>{label}</span>}</li>;
              })}
            </ul>
          </div>
        )}
        <div class="meta">
          <time
            dateTime={message.createdAt}
            title={new Date(message.createdAt).toLocaleString(model.i18n.locale.value)}
          >
            {relativeTime(message.createdAt, model.i18n.locale.value)}
          </time>
          {message.author === 'ai' && !model.config.chat.hideFeedbackButtons && (
            <span class="feedback">
              <button
                type="button"
                class="icon-btn"
                aria-label={s.ui.helpful}
                aria-pressed={message.feedback === 'up'}
                onClick={() => model.conversation.feedback(message, 'up')}
              >
                <ThumbUpIcon />
              </button>
              <button
                type="button"
                class="icon-btn"
                aria-label={s.ui.notHelpful}
                aria-pressed={message.feedback === 'down'}
                onClick={() => model.conversation.feedback(message, 'down')}
              >
                <ThumbDownIcon />
              </button>
            </span>
          )}
        </div>
      </div>
    </div>
  );
}

export function Prompts({
  model,
  prompts,
  kind,
  openLink,
  label,
}: {
  model: ChatModel;
  prompts: WidgetPrompt[];
  kind: 'starter' | 'followup';
  openLink(url: string): void;
  label: string;
}) {
  return (
    <div class={`prompts prompts-${kind}`} role="group" aria-label={label}>
      {prompts.map((p) => (
        <button
          type="button"
          class={`prompt${p.isEscalationPrompt ? ' prompt-escalation' : ''}${p.link ? ' prompt-link' : ''}`}
          onClick={() => model.prompt(p, kind, openLink)}
        >
          {p.title}
        </button>
      ))}
    </div>
  );
}
