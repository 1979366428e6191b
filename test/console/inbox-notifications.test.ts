/**
 * A new escalation's browser notification says what the visitor asked: their last message, not
 * the AI's answer or the escalation notice, on one line and short enough for a notification.
 */
import { describe, expect, test } from 'vitest';
import { BODY_CHARS, visitorAsked } from '../../console/pages/inbox/notifications.js';

const m = (author: 'visitor' | 'ai' | 'agent' | 'system', text: string) => ({ author, text });

describe("the notification's body", () => {
  test("the visitor's last message, not the answer or notice after it", () => {
    expect(
      visitorAsked([
        m('visitor', 'Hello'),
        m('ai', 'Hi! How can I help?'),
        m('visitor', 'Can I change the delivery address?'),
        m('ai', 'I could not find that in our documents.'),
        m('system', 'A person will join shortly.'),
      ]),
    ).toBe('Can I change the delivery address?');
  });

  test('on one line', () => {
    expect(visitorAsked([m('visitor', '  Order 1042\n\nhas not   arrived  ')])).toBe('Order 1042 has not arrived');
  });

  test('a long message is cut at a word, with an ellipsis', () => {
    const long = `${'word '.repeat(60)}end`;
    const body = visitorAsked([m('visitor', long)])!;
    expect(body.length).toBeLessThanOrEqual(BODY_CHARS);
    expect(body).toMatch(/^word( word)*…$/);
  });

  test('none when the visitor wrote nothing', () => {
    expect(visitorAsked([m('ai', 'Welcome!'), m('visitor', '   ')])).toBeNull();
    expect(visitorAsked([])).toBeNull();
  });
});
