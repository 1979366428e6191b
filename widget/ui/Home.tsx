/** The visitor's conversations, newest first, and a way to start another. */
import type { ChatModel } from '../state/chat.js';
import { relativeTime } from './time.js';

export function Home({ model }: { model: ChatModel }) {
  const s = model.i18n.strings.value;
  const items = model.conversation.conversations.value;
  const verified = model.account.visitor.value?.verified;
  return (
    <section class="home" aria-labelledby="home-h">
      <h2 id="home-h">{s.chatMessages.messages}</h2>
      {items === null && model.connection.status.value !== 'online' && model.connection.status.value !== 'idle' ? (
        <p class="muted">{s.chatHome.starting}</p>
      ) : !items?.length ? (
        <p class="muted">
          {s.chatMessages.noMessages}. {s.chatMessages.historyShowsUpHere}
        </p>
      ) : (
        <ul class="conversations">
          {items.map((c) => (
            <li>
              <button type="button" class="conversation" onClick={() => model.openConversation(c.id)}>
                <span class="conversation-text">{c.lastMessage ?? '…'}</span>
                {c.lastMessageAt && (
                  <time dateTime={c.lastMessageAt}>{relativeTime(c.lastMessageAt, model.i18n.locale.value)}</time>
                )}
              </button>
            </li>
          ))}
        </ul>
      )}
      <button type="button" class="primary" onClick={() => model.newConversation()}>
        {s.chatMessages.startConversation}
      </button>
      {!verified && (
        <p class="muted">
          {s.chatMessages.loginToSeeHistory}{' '}
          <button type="button" class="link" onClick={() => model.ui.show('account')}>
            {s.chatMessages.verifyEmail}
          </button>
        </p>
      )}
    </section>
  );
}
