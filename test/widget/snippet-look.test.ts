/**
 * The bubble's look carried by the embed snippet (`data-bubble`, widget/loader/snippet-look.ts):
 * what the playground writes is read back as the same look; anything the settings would refuse,
 * or anything hostile, makes the whole attribute ignored (the loader then waits for the settings).
 */
import { describe, expect, it } from 'vitest';
import { embedSnippet, encodeBubble, lookOf, parseBubble } from '../../widget/loader/snippet-look.js';
import { widgetConfig } from '../helpers/widget-config.js';

describe('data-bubble', () => {
  it('reads every field of a valid value', () => {
    expect(parseBubble('#1f6feb,#fff,R,20,24,M')).toEqual({
      brandColor: '#1f6feb',
      brandTextColor: '#fff',
      iconPosition: 'BOTTOM_RIGHT',
      distanceFromBottom: 20,
      horizontalDistance: 24,
      iconSize: 'MEDIUM',
      icon: null,
    });
    expect(parseBubble('#7B1FA2,#000000,L,0,2000,S')).toMatchObject({
      iconPosition: 'BOTTOM_LEFT',
      distanceFromBottom: 0,
      horizontalDistance: 2000,
      iconSize: 'SMALL',
    });
    expect(parseBubble('#123,#456,L,5,5,L,https://cdn.example.com/i.png?a=1,2')).toMatchObject({
      iconSize: 'LARGE',
      icon: 'https://cdn.example.com/i.png?a=1,2',
    });
  });

  it('round-trips what the playground writes for a config, custom icon included', () => {
    const config = widgetConfig({
      appearance: {
        brandColor: '#7b1fa2',
        iconPosition: 'BOTTOM_LEFT',
        distanceFromBottom: 40,
        horizontalDistance: 8,
        iconSize: 'LARGE',
      },
      icons: { bubble: 'https://cdn.example.com/b.svg' },
    });
    const value = encodeBubble(config)!;
    expect(value).toBe('#7b1fa2,#ffffff,L,40,8,L,https://cdn.example.com/b.svg');
    expect(parseBubble(value)).toEqual(lookOf(config));
    expect(encodeBubble(widgetConfig())).toBe('#1f6feb,#ffffff,R,20,20,M');
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['too few fields', '#1f6feb,#fff,R,20,20'],
    ['a colour name', 'red,#fff,R,20,20,M'],
    ['a colour of 4 digits', '#1f6f,#fff,R,20,20,M'],
    ['a CSS injection in a colour', '#fff;background:url(https://evil.example),#fff,R,20,20,M'],
    ['a colour with spaces', ' #1f6feb,#fff,R,20,20,M'],
    ['an unknown side', '#1f6feb,#fff,right,20,20,M'],
    ['an unknown size', '#1f6feb,#fff,R,20,20,XL'],
    ['a negative distance', '#1f6feb,#fff,R,-1,20,M'],
    ['a distance above the settings range', '#1f6feb,#fff,R,2001,20,M'],
    ['a fractional distance', '#1f6feb,#fff,R,20.5,20,M'],
    ['a distance with a unit', '#1f6feb,#fff,R,20px,20,M'],
    ['a leading zero', '#1f6feb,#fff,R,020,20,M'],
    ['a javascript: icon', '#1f6feb,#fff,R,20,20,M,javascript:alert(1)'],
    ['a data: icon', '#1f6feb,#fff,R,20,20,M,data:image/svg+xml,<svg onload=alert(1)>'],
    ['markup in the icon URL', '#1f6feb,#fff,R,20,20,M,https://x.example/"><img src=x onerror=alert(1)>'],
    ['a relative icon', '#1f6feb,#fff,R,20,20,M,/icon.png'],
    ['an empty icon', '#1f6feb,#fff,R,20,20,M,'],
    ['markup instead of a value', '<img src=x onerror=alert(1)>'],
    ['a huge value', `#1f6feb,#fff,R,20,20,M,https://x.example/${'a'.repeat(3000)}`],
  ])('ignores %s', (_, value) => {
    expect(parseBubble(value)).toBeNull();
  });

  it('writes no attribute for settings it cannot carry', () => {
    expect(encodeBubble(widgetConfig({ appearance: { brandColor: 'rebeccapurple' } }))).toBeNull();
  });
});

describe("embedSnippet (the playground's snippet)", () => {
  it('is one async script tag with the chatbot, the look when there is one, and the priority hint', () => {
    expect(embedSnippet('https://chat.example.com', 'bot_1', '#1f6feb,#ffffff,R,20,20,M')).toBe(
      '<script src="https://chat.example.com/widget.js" data-chatbot-id="bot_1" data-bubble="#1f6feb,#ffffff,R,20,20,M" fetchpriority="high" async></script>',
    );
    expect(embedSnippet('https://chat.example.com', 'bot_1', null)).toBe(
      '<script src="https://chat.example.com/widget.js" data-chatbot-id="bot_1" fetchpriority="high" async></script>',
    );
  });
});
