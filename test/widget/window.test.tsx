// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, within } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { widgetConfig } from '../helpers/widget-config.js';
import { message, setup } from './harness.js';

afterEach(cleanup);

const lastSend = (sent: Array<{ type: string }>) =>
  sent.filter((f) => f.type === 'message.send').at(-1) as unknown as {
    clientId: string;
    text: string;
    conversationId?: string;
    via?: unknown;
  };

describe('chat window', () => {
  it('shows the header name, welcome message, starters and placeholder', () => {
    setup();
    expect(screen.getByRole('heading', { name: 'Docs assistant' })).toBeTruthy();
    expect(screen.getByText('Hi! How can I help you today?')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Pricing' })).toBeTruthy();
    expect(screen.getByPlaceholderText('Ask a question…')).toBeTruthy();
  });

  it('a starter sends its description; a link starter opens its link and sends nothing', () => {
    const t = setup();
    fireEvent.click(screen.getByRole('button', { name: 'Docs' }));
    expect(t.links).toEqual(['https://docs.example/']);
    expect(t.sent).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'Pricing' }));
    expect(lastSend(t.sent)).toMatchObject({ text: 'How much does it cost?', via: { kind: 'starter', id: 's1' } });
    expect(t.transport.started).toBe(1);
    // Shown at once as pending, and the starters give way to the conversation.
    expect(screen.getByText('How much does it cost?')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Pricing' })).toBeNull();
  });

  it('Enter sends, Shift+Enter does not; the acknowledged message replaces the pending one', () => {
    const t = setup();
    const input = screen.getByRole('textbox') as HTMLTextAreaElement;
    fireEvent.input(input, { target: { value: 'line one' } });
    fireEvent.keyDown(input, { key: 'Enter', shiftKey: true });
    expect(t.sent.filter((f) => f.type === 'message.send')).toHaveLength(0);
    fireEvent.keyDown(input, { key: 'Enter' });
    const frame = lastSend(t.sent);
    expect(frame.text).toBe('line one');
    expect(frame.conversationId).toBeUndefined();
    t.play(
      { type: 'ack', clientId: frame.clientId, conversationId: 'conv1', messageId: 'v1', seq: 1 },
      {
        type: 'message.created',
        conversationId: 'conv1',
        seq: 1,
        message: message({ id: 'v1', author: 'visitor', text: 'line one', clientId: frame.clientId, seq: 1 }),
      },
    );
    expect(screen.getAllByText('line one')).toHaveLength(1);
    expect(t.model.conversation.conversationId.value).toBe('conv1');
    expect(t.stored?.conversationId).toBe('conv1');
    // The next message continues the conversation.
    fireEvent.input(input, { target: { value: 'again' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(lastSend(t.sent).conversationId).toBe('conv1');
  });

  it('messages typed before the first is acknowledged join its conversation instead of opening their own', () => {
    const t = setup();
    const input = screen.getByRole('textbox') as HTMLTextAreaElement;
    for (const text of ['first', 'second', 'third']) {
      fireEvent.input(input, { target: { value: text } });
      fireEvent.keyDown(input, { key: 'Enter' });
    }
    // Only the opener goes out; the other two wait for its conversation, shown as pending.
    const sends = () =>
      t.sent.filter((f) => f.type === 'message.send') as unknown as Array<{
        clientId: string;
        text: string;
        conversationId?: string;
      }>;
    expect(sends().map((f) => f.text)).toEqual(['first']);
    expect(screen.getByText('second')).toBeTruthy();
    t.play({ type: 'ack', clientId: sends()[0].clientId, conversationId: 'conv1', messageId: 'v1', seq: 2 });
    expect(sends().map((f) => [f.text, f.conversationId])).toEqual([
      ['first', undefined],
      ['second', 'conv1'],
      ['third', 'conv1'],
    ]);
  });

  it('when the opener is refused, the next waiting message opens the conversation', () => {
    const t = setup();
    const input = screen.getByRole('textbox') as HTMLTextAreaElement;
    for (const text of ['too long', 'short']) {
      fireEvent.input(input, { target: { value: text } });
      fireEvent.keyDown(input, { key: 'Enter' });
    }
    const sends = () =>
      t.sent.filter((f) => f.type === 'message.send') as unknown as Array<{
        clientId: string;
        text: string;
        conversationId?: string;
      }>;
    t.play({
      type: 'error',
      code: 'VALIDATION_FAILED',
      message: 'Message too long',
      ref: { type: 'message.send', clientId: sends()[0].clientId },
    });
    expect(sends().map((f) => [f.text, f.conversationId])).toEqual([
      ['too long', undefined],
      ['short', undefined],
    ]);
  });

  it('streams an answer by delta index (repeats dropped), then shows the stored answer with sources, feedback and follow-ups', () => {
    const t = setup(undefined, { stored: { token: 't', conversationId: 'conv1' } });
    t.play(
      { type: 'answer.delta', conversationId: 'conv1', messageId: 'a1', index: 0, delta: 'Plans start ' },
      { type: 'answer.delta', conversationId: 'conv1', messageId: 'a1', index: 0, delta: 'Plans start ' },
      { type: 'answer.delta', conversationId: 'conv1', messageId: 'a1', index: 1, delta: 'at **$9**' },
    );
    expect(screen.getByRole('log').textContent).toContain('Plans start at $9');
    expect(screen.getByText('$9').tagName).toBe('STRONG');
    const answer = message({
      id: 'a1',
      text: 'Plans start at **$9** a month.',
      sources: [
        {
          documentId: 'd1',
          title: 'Pricing',
          url: 'https://example.com/pricing',
          link: 'https://example.com/pricing#:~:text=Plans',
          headingPath: ['Plans'],
        },
      ],
      followUps: [
        {
          title: 'Is there a free trial?',
          description: 'Is there a free trial?',
          link: null,
          isEscalationPrompt: false,
        },
        { title: 'Talk to sales', description: '', link: null, isEscalationPrompt: true },
      ],
    });
    t.play({ type: 'answer.done', conversationId: 'conv1', seq: answer.seq, message: answer });
    expect(screen.getByRole('log').textContent).toContain('Plans start at $9 a month.');
    expect(screen.getByRole('log').textContent?.match(/Plans start/g)).toHaveLength(1);
    const source = screen.getByRole('link', { name: /Pricing/ });
    expect(source.getAttribute('href')).toBe('https://example.com/pricing#:~:text=Plans');
    expect(source.getAttribute('rel')).toBe('noopener noreferrer');
    fireEvent.click(screen.getByRole('button', { name: 'Helpful' }));
    expect(t.sent.at(-1)).toEqual({ type: 'feedback', conversationId: 'conv1', messageId: 'a1', feedback: 'up' });
    expect(screen.getByRole('button', { name: 'Helpful' }).getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(screen.getByRole('button', { name: 'Is there a free trial?' }));
    expect(lastSend(t.sent)).toMatchObject({
      text: 'Is there a free trial?',
      conversationId: 'conv1',
      via: { kind: 'followup' },
    });
  });

  it('an escalation follow-up opens the dialog; confirming escalates, and the condition notice appears', () => {
    const t = setup(undefined, { stored: { token: 't', conversationId: 'conv1' } });
    const answer = message({
      followUps: [{ title: 'Talk to sales', description: '', link: null, isEscalationPrompt: true }],
    });
    t.play({ type: 'message.created', conversationId: 'conv1', seq: answer.seq, message: answer });
    fireEvent.click(screen.getByRole('button', { name: 'Talk to sales' }));
    const dialog = screen.getByRole('alertdialog');
    expect(within(dialog).getByText('Talk to a person?')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Talk to sales' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, continue' }));
    expect(t.sent.at(-1)).toEqual({ type: 'escalate', conversationId: 'conv1' });
    t.play({
      type: 'condition',
      conversationId: 'conv1',
      seq: 40,
      change: 'escalated',
      state: { mode: 'AI', status: 'OPEN', escalated: true, agent: null },
    });
    expect(screen.getByText(/passed to our team/)).toBeTruthy();
    expect(t.events.some((e) => e.event === 'escalated')).toBe(true);
  });

  it('shows take-over, agent messages with name and avatar, hand-back and resolved notices', () => {
    const t = setup(undefined, { stored: { token: 't', conversationId: 'conv1' } });
    const agent = { id: 'u1', name: 'Dana', avatarUrl: 'https://cdn.example/dana.png' };
    t.play(
      {
        type: 'condition',
        conversationId: 'conv1',
        seq: 50,
        change: 'taken_over',
        state: { mode: 'AGENT', status: 'OPEN', escalated: true, agent },
      },
      { type: 'typing', conversationId: 'conv1', who: 'agent', typing: true, agent },
    );
    expect(screen.getByText('Dana joined the conversation')).toBeTruthy();
    expect(screen.getByRole('status').textContent).toContain('Dana is typing');
    t.play({
      type: 'message.created',
      conversationId: 'conv1',
      seq: 51,
      message: message({ author: 'agent', name: 'Dana', agent, text: 'Hi, Dana here', seq: 51 }),
    });
    expect(screen.getByText('Hi, Dana here')).toBeTruthy();
    expect(screen.getAllByText('Dana').length).toBeGreaterThan(0);
    expect(t.view.container.querySelector('.avatar-agent img')?.getAttribute('src')).toBe(
      'https://cdn.example/dana.png',
    );
    expect(screen.queryByText(/is typing/)).toBeNull();
    t.play(
      {
        type: 'condition',
        conversationId: 'conv1',
        seq: 52,
        change: 'released',
        state: { mode: 'AI', status: 'OPEN', escalated: true, agent: null },
      },
      {
        type: 'condition',
        conversationId: 'conv1',
        seq: 53,
        change: 'resolved',
        state: { mode: 'AI', status: 'RESOLVED', escalated: true, agent: null },
      },
    );
    expect(screen.getByText('The assistant is answering again')).toBeTruthy();
    expect(screen.getByText('This conversation was marked as resolved')).toBeTruthy();
    // A replayed condition (same seq) adds nothing.
    t.play({
      type: 'condition',
      conversationId: 'conv1',
      seq: 53,
      change: 'resolved',
      state: { mode: 'AI', status: 'RESOLVED', escalated: true, agent: null },
    });
    expect(screen.getAllByText('This conversation was marked as resolved')).toHaveLength(1);
  });

  it('hides sources, feedback and the watermark when the settings say so; shows the CTA', () => {
    const t = setup(
      widgetConfig({
        chat: { hideSources: true, hideFeedbackButtons: true },
        watermark: { hide: true },
        appearance: { ctaText: 'Book a demo', ctaLink: 'https://example.com/demo' },
      }),
      { stored: { token: 't', conversationId: 'conv1' } },
    );
    const m = message({
      sources: [{ documentId: 'd', title: 'Secret doc', url: 'https://x.example', link: null, headingPath: [] }],
    });
    t.play({ type: 'message.created', conversationId: 'conv1', seq: m.seq, message: m });
    expect(screen.queryByText('Secret doc')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Helpful' })).toBeNull();
    expect(screen.queryByText('Powered by Parley')).toBeNull();
    expect(screen.getByRole('link', { name: 'Book a demo' }).getAttribute('href')).toBe('https://example.com/demo');
  });

  it('shows the watermark text and link', () => {
    setup();
    const link = screen.getByRole('link', { name: 'Powered by Parley' });
    expect(link.getAttribute('href')).toBe('https://parley.example/');
  });

  it('every localization string replaces the default text', () => {
    const t = setup(
      widgetConfig({
        localization: {
          chatMessage: { escalationHeading: 'Need a human?', yesContinue: 'Go', cancel: 'Nope' },
          chatAccount: { verifyEmail: 'Prove it', emailLabel: 'Mail', submit: 'Send me a code' },
          chatMessages: { messages: 'Chats', noMessages: 'Nothing here', startConversation: 'Begin' },
        },
      }),
      { stored: { token: 't', conversationId: 'conv1' } },
    );
    return import('../../widget/i18n/locales.js').then(async ({ loadStrings }) => {
      const strings = await loadStrings('en', t.model.config.localization);
      t.act(() => {
        t.model.i18n.setStrings(strings);
        t.model.ui.askEscalation();
      });
      expect(await screen.findByText('Need a human?')).toBeTruthy();
      fireEvent.click(screen.getByRole('button', { name: 'Nope' }));
      fireEvent.click(screen.getByRole('button', { name: 'Account' }));
      expect(await screen.findByText('Prove it')).toBeTruthy();
      expect(screen.getByLabelText('Mail')).toBeTruthy();
      expect(screen.getByRole('button', { name: 'Send me a code' })).toBeTruthy();
      fireEvent.click(screen.getByRole('button', { name: 'Chats' }));
      expect(await screen.findByRole('heading', { name: 'Chats' })).toBeTruthy();
      expect(screen.getByRole('button', { name: 'Begin' })).toBeTruthy();
    });
  });

  it('Escape closes the floating window', () => {
    const t = setup();
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    expect(t.closed).toBe(1);
  });

  it('renders right to left', () => {
    setup(widgetConfig({ appearance: { rtl: true } }));
    expect(screen.getByRole('dialog').getAttribute('dir')).toBe('rtl');
  });
});
