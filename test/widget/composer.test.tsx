// @vitest-environment happy-dom
/**
 * The input: Shift+Enter leaves the line break to the browser and sends nothing, and the input
 * grows with its lines up to a limit; Enter sends the whole text and the input shrinks back.
 * happy-dom lays nothing out, so the textarea's scrollHeight is given as a browser would
 * report it (20 px a line plus 16 px padding); chromium checks the real growth
 * (test/browser/widget.test.ts).
 */
import { cleanup, fireEvent, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { widgetConfig } from '../helpers/widget-config.js';
import { setup } from './harness.js';

afterEach(cleanup);

function laidOut(area: HTMLTextAreaElement) {
  Object.defineProperty(area, 'scrollHeight', {
    configurable: true,
    get: () => 16 + 20 * Math.max(1, area.value.split('\n').length),
  });
}

describe('composer', () => {
  it('Shift+Enter adds lines and the input grows (to 160 px at most); Enter sends them all and it shrinks back', async () => {
    vi.stubGlobal('requestAnimationFrame', (fn: FrameRequestCallback) => setTimeout(() => fn(0), 0));
    const t = setup();
    const area = screen.getByRole('textbox') as HTMLTextAreaElement;
    laidOut(area);
    const sends = () => t.sent.filter((f) => f.type === 'message.send');

    let text = 'first line';
    fireEvent.input(area, { target: { value: text } });
    expect(area.style.height).toBe('36px');
    for (const line of ['second line', 'third line']) {
      // Not prevented: the browser inserts the line break.
      expect(fireEvent.keyDown(area, { key: 'Enter', shiftKey: true })).toBe(true);
      text += `\n${line}`;
      fireEvent.input(area, { target: { value: text } });
    }
    expect(sends()).toHaveLength(0);
    expect(area.style.height).toBe('76px');
    fireEvent.input(area, { target: { value: `${text}\n4\n5\n6\n7\n8\n9` } });
    expect(area.style.height).toBe('160px');
    fireEvent.input(area, { target: { value: text } });

    expect(fireEvent.keyDown(area, { key: 'Enter' })).toBe(false);
    expect(sends()).toHaveLength(1);
    expect((sends()[0] as { text: string }).text).toBe('first line\nsecond line\nthird line');
    await new Promise((r) => setTimeout(r, 5));
    expect(area.value).toBe('');
    expect(area.style.height).toBe('36px');
    // The visitor's line breaks are kept in what is shown.
    expect(screen.getByText(/first line\s+second line/).textContent).toBe('first line\nsecond line\nthird line');
    vi.unstubAllGlobals();
  });

  it('Enter while composing (an input method) does not send', () => {
    const t = setup();
    const area = screen.getByRole('textbox') as HTMLTextAreaElement;
    fireEvent.input(area, { target: { value: 'にほん' } });
    fireEvent.keyDown(area, { key: 'Enter', isComposing: true });
    expect(t.sent.filter((f) => f.type === 'message.send')).toHaveLength(0);
  });

  it("while empty the input takes its placeholder's direction, whatever the window's; typed text follows its own", () => {
    // An English placeholder in a right-to-left window: its "…" belongs at the right end.
    setup(widgetConfig({ appearance: { rtl: true, placeholderText: 'Ask a question…' } }));
    const area = screen.getByRole('textbox') as HTMLTextAreaElement;
    expect(area.closest('[dir="rtl"]')).not.toBeNull();
    expect(area.getAttribute('dir')).toBe('ltr');
    fireEvent.input(area, { target: { value: 'שלום' } });
    expect(area.getAttribute('dir')).toBe('auto');
    fireEvent.input(area, { target: { value: '' } });
    expect(area.getAttribute('dir')).toBe('ltr');
    cleanup();

    // And the other way round: a Hebrew placeholder in a left-to-right window.
    setup(widgetConfig({ appearance: { rtl: false, placeholderText: '…שאלו שאלה' } }));
    expect(screen.getByRole('textbox').getAttribute('dir')).toBe('rtl');
    cleanup();
    // A placeholder with no letters decides nothing.
    setup(widgetConfig({ appearance: { rtl: true, placeholderText: '…' } }));
    expect(screen.getByRole('textbox').getAttribute('dir')).toBe('auto');
  });
});
