// @vitest-environment happy-dom
/**
 * A team member shows under one name in the header, the take-over notice, their replies and
 * their typing: the name the server sends, or (null: no display name) the widget's
 * chatMessage.agentName text, the owner's override or the language's own.
 */
import { cleanup, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import type { TeamMember } from '../../shared/protocol.js';
import { loadStrings } from '../../widget/i18n/locales.js';
import { widgetConfig } from '../helpers/widget-config.js';
import { message, setup } from './harness.js';

afterEach(cleanup);

function takenOverAndAnswered(t: ReturnType<typeof setup>, agent: TeamMember) {
  t.play(
    {
      type: 'condition',
      conversationId: 'conv1',
      seq: 10,
      change: 'taken_over',
      state: { mode: 'AGENT', status: 'OPEN', escalated: false, agent },
    },
    { type: 'typing', conversationId: 'conv1', who: 'agent', typing: true, agent },
  );
  const typing = screen.getByRole('log').querySelector('.typing')?.textContent;
  const reply = message({ author: 'agent', name: agent.name, agent, text: 'A person here.', seq: 11 });
  t.play(
    { type: 'typing', conversationId: 'conv1', who: 'agent', typing: false, agent },
    { type: 'message.created', conversationId: 'conv1', seq: 11, message: reply },
  );
  return {
    header: document.querySelector('.header-sub')?.textContent,
    notice: document.querySelector('.notice-taken_over')?.textContent,
    author: document.querySelector('.msg-agent .author')?.textContent,
    avatar: document.querySelector('.msg-agent .avatar')?.textContent,
    typing,
  };
}

describe("the agent's name", () => {
  it('stays under the title only while the member has the conversation open and the chat is shown', () => {
    const t = setup(undefined, { stored: { token: 't', conversationId: 'conv1' } });
    takenOverAndAnswered(t, { id: 'u1', name: null, avatarUrl: null });
    expect(document.querySelector('.header-sub')?.textContent).toBe('Support team');
    t.act(() => t.model.ui.show('account'));
    expect(document.querySelector('.header-sub')).toBeNull();
    t.act(() => t.model.ui.show('chat'));
    expect(document.querySelector('.header-sub')?.textContent).toBe('Support team');
    t.play({
      type: 'condition',
      conversationId: 'conv1',
      seq: 12,
      change: 'resolved',
      state: { mode: 'AGENT', status: 'RESOLVED', escalated: false, agent: { id: 'u1', name: null, avatarUrl: null } },
    });
    expect(document.querySelector('.notice-resolved')).not.toBeNull();
    expect(document.querySelector('.header-sub')).toBeNull();
  });

  it('a named member: the same name in the header, the notice, the reply and the typing line', () => {
    const t = setup(undefined, { stored: { token: 't', conversationId: 'conv1' } });
    expect(takenOverAndAnswered(t, { id: 'u1', name: 'Dana', avatarUrl: null })).toEqual({
      header: 'Dana',
      notice: 'Dana joined the conversation',
      author: 'Dana',
      avatar: 'D',
      typing: 'Dana is typing…',
    });
  });

  it("no display name: the widget's support-team text everywhere, in the widget's language or the owner's wording", async () => {
    const t = setup(undefined, { stored: { token: 't', conversationId: 'conv1' } });
    expect(takenOverAndAnswered(t, { id: 'u1', name: null, avatarUrl: null })).toMatchObject({
      header: 'Support team',
      notice: 'Support team joined the conversation',
      author: 'Support team',
      typing: 'Support team is typing…',
    });
    cleanup();

    const de = setup(widgetConfig({ locale: 'de' }), { stored: { token: 't', conversationId: 'conv1' } });
    const strings = await loadStrings('de', null);
    de.act(() => de.model.i18n.setStrings(strings));
    expect(takenOverAndAnswered(de, { id: 'u1', name: null, avatarUrl: null })).toMatchObject({
      header: 'Support-Team',
      notice: 'Support-Team ist der Unterhaltung beigetreten',
      author: 'Support-Team',
    });
    cleanup();

    const config = widgetConfig({ localization: { chatMessage: { agentName: 'Kundendienst' } } });
    const own = setup(config, { stored: { token: 't', conversationId: 'conv1' } });
    const ownStrings = await loadStrings('en', config.localization);
    own.act(() => own.model.i18n.setStrings(ownStrings));
    expect(takenOverAndAnswered(own, { id: 'u1', name: null, avatarUrl: null })).toMatchObject({
      header: 'Kundendienst',
      author: 'Kundendienst',
      typing: 'Kundendienst is typing…',
    });
  });
});
