// @vitest-environment happy-dom
/**
 * The page address the widget sends with each message: the host page's, read at each send (so a
 * single-page app's navigation is followed), never its fragment or another scheme, within the
 * protocol's limit.
 */
import { cleanup } from '@testing-library/preact';
import { afterEach, expect, test } from 'vitest';
import type { SendMessageFrame } from '../../shared/protocol.js';
import { LIMITS } from '../../shared/protocol.js';
import { pageUrl } from '../../widget/state/page-url.js';
import { setup } from './harness.js';

afterEach(cleanup);

test('each message carries the page the visitor is on, followed across client-side navigation', async () => {
  history.replaceState({}, '', '/returns?order=7#reset_token=abc');
  const w = setup();
  await w.act(() => w.model.send('Can I return this?'));
  const first = w.sent.find((f): f is SendMessageFrame => f.type === 'message.send')!;
  expect(first.page).toBe(`${location.origin}/returns?order=7`);

  w.play({ type: 'ack', clientId: first.clientId, conversationId: 'conv1', messageId: 'm1', seq: 1 });
  history.pushState({}, '', '/delivery#top');
  await w.act(() => w.model.send('And delivery?'));
  const sends = w.sent.filter((f): f is SendMessageFrame => f.type === 'message.send');
  expect(sends).toHaveLength(2);
  expect(sends[1]!.page).toBe(`${location.origin}/delivery`);
});

test('the address without its fragment', () => {
  expect(pageUrl('https://shop.example/returns?order=7#reset_token=abc')).toBe('https://shop.example/returns?order=7');
  expect(pageUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080/');
});

test('only http(s) pages: a file, a data page or no address sends nothing', () => {
  expect(pageUrl('file:///home/me/index.html')).toBeUndefined();
  expect(pageUrl('data:text/html,hi')).toBeUndefined();
  expect(pageUrl('about:blank')).toBeUndefined();
  expect(pageUrl('')).toBeUndefined();
});

test('too long: the address without its query, else nothing', () => {
  expect(pageUrl(`https://shop.example/search?q=${'x'.repeat(LIMITS.pageUrlMax)}`)).toBe('https://shop.example/search');
  expect(pageUrl(`https://shop.example/${'p'.repeat(LIMITS.pageUrlMax)}`)).toBeUndefined();
});
