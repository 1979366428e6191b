// @vitest-environment happy-dom
import { cleanup, fireEvent, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { relativeTime } from '../../widget/ui/time.js';
import { widgetConfig } from '../helpers/widget-config.js';
import { message, setup } from './harness.js';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const visitor = { id: 'v1', email: 'ann@example.com', name: 'Ann', phone: null, verified: true };

describe('account (one-time code)', () => {
  it('requests a code, verifies it, stores the new token and shows the verified visitor; resend waits for the cooldown', () => {
    const t = setup(widgetConfig({ userData: { collectUserData: { name: true, phone: true } } }));
    fireEvent.click(screen.getByRole('button', { name: 'Account' }));
    fireEvent.input(screen.getByLabelText('E-mail'), { target: { value: 'ann@example.com' } });
    fireEvent.input(screen.getByLabelText('Name'), { target: { value: 'Ann' } });
    fireEvent.input(screen.getByLabelText('Phone'), { target: { value: '+4912345' } });
    fireEvent.click(screen.getByRole('button', { name: 'Submit' }));
    expect(t.sent.at(-1)).toEqual({ type: 'otp.request', email: 'ann@example.com', name: 'Ann', phone: '+4912345' });
    expect(screen.getByRole('button', { name: 'Sending code…' })).toBeTruthy();
    t.play({ type: 'otp.sent', email: 'ann@example.com', resendAfter: 30 });
    expect(screen.getByText('ann@example.com')).toBeTruthy();
    expect((screen.getByRole('button', { name: /Resend in \d+ s/ }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.input(screen.getByLabelText('Code'), { target: { value: ' 123456 ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify and continue' }));
    expect(t.sent.at(-1)).toEqual({ type: 'otp.verify', email: 'ann@example.com', code: '123456' });
    t.play({ type: 'error', code: 'OTP_INVALID', message: 'That code is not valid', ref: { type: 'otp.verify' } });
    expect(screen.getByRole('alert').textContent).toBe('That code is not valid');
    fireEvent.click(screen.getByRole('button', { name: 'Verify and continue' }));
    t.play({
      type: 'verified',
      visitor,
      token: 'verified-token',
      expiresAt: new Date(Date.now() + 3600e3).toISOString(),
    });
    expect(t.stored?.token).toBe('verified-token');
    expect(t.transport.reconnects).toBe(1);
    expect(screen.getByText('Verified')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Log out' }));
    expect(t.sent.at(-1)).toEqual({ type: 'logout' });
    t.play({ type: 'logged_out' });
    expect(t.stored).toBeNull();
  });

  it('the form says "Verify your e-mail" once, as its heading; the verified badge is its own, not the bubble\'s unread badge', () => {
    const t = setup();
    fireEvent.click(screen.getByRole('button', { name: 'Account' }));
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Verify your e-mail');
    expect(document.querySelector('.account')!.textContent!.match(/Verify your e-mail/g)).toHaveLength(1);
    t.play({
      type: 'verified',
      visitor,
      token: 'verified-token',
      expiresAt: new Date(Date.now() + 3600e3).toISOString(),
    });
    const badge = screen.getByText('Verified');
    expect(badge.classList.contains('badge')).toBe(false);
    expect(badge.parentElement!.textContent).toBe('Verified ann@example.com');
  });

  it('edit details goes back to the form with the values kept', () => {
    const t = setup();
    fireEvent.click(screen.getByRole('button', { name: 'Account' }));
    fireEvent.input(screen.getByLabelText('E-mail'), { target: { value: 'bob@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Submit' }));
    t.play({ type: 'otp.sent', email: 'bob@example.com', resendAfter: 0 });
    expect((screen.getByRole('button', { name: 'Resend' }) as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Edit details' }));
    expect((screen.getByLabelText('E-mail') as HTMLInputElement).value).toBe('bob@example.com');
  });
});

describe('conversation list', () => {
  it('lists the visitor’s conversations and opens one with its whole history', () => {
    const t = setup(undefined, { stored: { token: 't', conversationId: null } });
    fireEvent.click(screen.getByRole('button', { name: 'Messages' }));
    expect(t.sent.at(-1)).toEqual({ type: 'conversations.list' });
    const state = { mode: 'AI' as const, status: 'OPEN' as const, escalated: false, agent: null };
    t.play({
      type: 'conversations',
      items: [
        {
          id: 'c2',
          lastMessage: 'Where is my order?',
          lastMessageAt: new Date(Date.now() - 3 * 60_000).toISOString(),
          seq: 4,
          state,
        },
        {
          id: 'c1',
          lastMessage: 'Pricing?',
          lastMessageAt: new Date(Date.now() - 2 * 86_400_000).toISOString(),
          seq: 9,
          state,
        },
      ],
    });
    expect(screen.getByText('3 minutes ago')).toBeTruthy();
    expect(screen.getByText('2 days ago')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /Where is my order/ }));
    expect(t.sent.at(-1)).toEqual({ type: 'conversation.open', conversationId: 'c2', after: 0 });
    expect(t.model.conversation.conversationId.value).toBe('c2');
    expect(t.stored?.conversationId).toBe('c2');
  });

  it('says so when there are none', () => {
    const t = setup(undefined, { stored: { token: 't', conversationId: null } });
    fireEvent.click(screen.getByRole('button', { name: 'Messages' }));
    t.play({ type: 'conversations', items: [] });
    expect(screen.getByText(/No conversations yet/)).toBeTruthy();
  });
});

describe('lead form', () => {
  it('before the conversation: asks first, sends the owner’s fields, then lets the visitor chat', () => {
    const t = setup(
      widgetConfig({
        userData: {
          collectUserDetails: 'BEFORE_CONVERSATION',
          collectUserData: { name: true, phone: false },
          leadFields: [{ key: 'company', label: 'Company', type: 'text', required: true }],
        },
      }),
    );
    expect(screen.queryByRole('textbox', { name: /Ask a question/ })).toBeNull();
    fireEvent.input(screen.getByLabelText('E-mail'), { target: { value: 'lee@example.com' } });
    fireEvent.input(screen.getByLabelText('Company'), { target: { value: 'Acme' } });
    fireEvent.submit(screen.getByRole('form'));
    expect(t.sent.at(-1)).toEqual({ type: 'lead.submit', email: 'lee@example.com', customFields: { company: 'Acme' } });
    t.play({
      type: 'lead.saved',
      visitor: { id: 'v', email: 'lee@example.com', name: null, phone: null, verified: false },
    });
    expect(screen.getByRole('textbox', { name: /Ask a question/ })).toBeTruthy();
    expect(t.events.find((e) => e.event === 'lead')).toBeTruthy();
  });

  it('on escalation: the form comes between the dialog and the escalation', () => {
    const t = setup(widgetConfig({ userData: { collectUserDetails: 'ON_ESCALATION' } }), {
      stored: { token: 't', conversationId: 'conv1' },
    });
    t.play({
      type: 'condition',
      conversationId: 'conv1',
      seq: 1,
      state: { mode: 'AI', status: 'OPEN', escalated: false, agent: null },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Talk to a person' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, continue' }));
    expect(t.sent.some((f) => f.type === 'escalate')).toBe(false);
    fireEvent.input(screen.getByLabelText('E-mail'), { target: { value: 'lee@example.com' } });
    fireEvent.submit(screen.getByRole('form'));
    t.play({
      type: 'lead.saved',
      visitor: { id: 'v', email: 'lee@example.com', name: null, phone: null, verified: false },
    });
    expect(t.sent.at(-1)).toEqual({ type: 'escalate', conversationId: 'conv1' });
  });
});

describe('unread and times', () => {
  it('counts answers and agent messages while closed, and clears on open', () => {
    const t = setup(undefined, { stored: { token: 't', conversationId: 'conv1' } });
    t.act(() => t.model.ui.setOpen(false));
    t.play({
      type: 'message.created',
      conversationId: 'conv1',
      seq: 100,
      message: message({ seq: 100, author: 'agent', text: 'Still there?' }),
    });
    expect(t.model.ui.unread.value).toBe(1);
    expect(t.events.filter((e) => e.event === 'unread').at(-1)?.detail).toBe(1);
    t.act(() => t.model.ui.setOpen(true));
    expect(t.model.ui.unread.value).toBe(0);
  });

  it('writes relative times in the locale', () => {
    const now = Date.parse('2026-01-10T12:00:00Z');
    expect(relativeTime('2026-01-10T11:55:00Z', 'en', now)).toBe('5 minutes ago');
    expect(relativeTime('2026-01-09T12:00:00Z', 'de', now)).toBe('gestern');
    expect(relativeTime('2026-01-10T11:59:50Z', 'fr', now)).toBe('maintenant');
  });
});
