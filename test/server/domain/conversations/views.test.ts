/**
 * How stored rows look to API clients and realtime frames (domain/conversations/views.ts): a
 * message's sources keep only the place they point to, names come from the row, a list preview
 * is cut on whole characters.
 */
import { expect, test } from 'vitest';
import { LAST_MESSAGE_PREVIEW } from '../../../../shared/conversations.js';
import type { MessageRecord } from '../../../../server/domain/conversations/ports.js';
import { messageView, preview } from '../../../../server/domain/conversations/views.js';

const row = (over: Partial<MessageRecord> = {}): MessageRecord => ({
  id: 'm1',
  conversationId: 'c1',
  chatbotId: 'b1',
  seq: 3,
  author: 'ai',
  text: 'Refunds take five days.',
  sources: [],
  agentId: null,
  agentName: null,
  feedback: null,
  feedbackComment: null,
  originalText: null,
  meta: {},
  clientMessageId: null,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
  ...over,
});

test('a source shows its place: page and video time only when the chunk has them', () => {
  const view = messageView(
    row({
      sources: [
        {
          documentId: 'd1',
          title: 'Guide',
          url: 'https://x.test/g.pdf',
          link: 'https://x.test/g.pdf#page=4',
          score: 0.9,
          location: { url: null, headingPath: ['Returns'], page: 4, textFragment: 'Refunds' },
        },
        {
          documentId: 'd2',
          title: 'Talk',
          url: null,
          link: null,
          score: 0.5,
          location: { url: null, headingPath: [], startSeconds: 90, textFragment: 'x' },
        },
      ],
      meta: {
        followUps: [{ title: 'More', description: '', link: null, isEscalationPrompt: false }],
        unanswered: true,
        name: 'Shop bot',
      },
    }),
  );
  expect(view.sources).toEqual([
    {
      documentId: 'd1',
      title: 'Guide',
      url: 'https://x.test/g.pdf',
      link: 'https://x.test/g.pdf#page=4',
      headingPath: ['Returns'],
      page: 4,
    },
    { documentId: 'd2', title: 'Talk', url: null, link: null, headingPath: [], startSeconds: 90 },
  ]);
  expect(view).toMatchObject({
    threadId: 'c1',
    name: 'Shop bot',
    unanswered: true,
    followUps: [{ title: 'More' }],
    agent: null,
  });
});

test("a team member's message is named by the agent when no name was stored with it", () => {
  expect(messageView(row({ author: 'agent', agentId: 'u1', agentName: 'Ana' }))).toMatchObject({
    name: 'Ana',
    agent: { id: 'u1', name: 'Ana' },
  });
  expect(messageView(row({ author: 'visitor' })).name).toBeNull();
});

test('a preview is cut on whole characters and marked with an ellipsis; a short text is kept as it is', () => {
  const long = '😀'.repeat(LAST_MESSAGE_PREVIEW + 5);
  const cut = preview(row({ text: long }))!.text;
  expect([...cut]).toHaveLength(LAST_MESSAGE_PREVIEW);
  expect(cut.endsWith('😀…')).toBe(true);
  expect(preview(row())!.text).toBe('Refunds take five days.');
  expect(preview(undefined)).toBeNull();
});
