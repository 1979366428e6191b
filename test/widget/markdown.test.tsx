// @vitest-environment happy-dom
import { cleanup, render } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { Markdown } from '../../widget/ui/markdown.js';
import { XSS_CORPUS } from '../helpers/xss-corpus.js';

afterEach(cleanup);

describe('safe Markdown', () => {
  it('renders emphasis, code, lists, quotes and http(s) links', () => {
    const { container } = render(
      <Markdown
        text={
          '# Title\n\nSome **bold**, *em* and `code`.\n\n- one\n- two\n\n1. first\n2. second\n\n> quoted\n\n```\nconst x = 1 < 2;\n```\n\nSee [the docs](https://docs.example/a?b=1) or https://example.com/x.'
        }
      />,
    );
    expect([...container.querySelectorAll('strong')].map((e) => e.textContent)).toEqual(['Title', 'bold']);
    expect(container.querySelector('em')?.textContent).toBe('em');
    expect(container.querySelectorAll('ul li')).toHaveLength(2);
    expect(container.querySelectorAll('ol li')).toHaveLength(2);
    expect(container.querySelector('blockquote')?.textContent).toBe('quoted');
    expect(container.querySelector('pre code')?.textContent).toBe('const x = 1 < 2;');
    const links = [...container.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://docs.example/a?b=1', 'https://example.com/x']);
    for (const a of links) {
      expect(a.getAttribute('rel')).toBe('noopener noreferrer');
      expect(a.getAttribute('target')).toBe('_blank');
    }
  });

  it('never loads a remote image: an image becomes a link to it', () => {
    const { container } = render(<Markdown text={'![diagram](https://evil.example/track.png)'} />);
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('a')?.getAttribute('href')).toBe('https://evil.example/track.png');
  });

  it.each(XSS_CORPUS)('renders %j as text, with no active content', (payload) => {
    const { container } = render(<Markdown text={payload} />);
    expect(
      container.querySelector('script, iframe, img, svg, object, embed, style, form, input, video, audio, math'),
    ).toBeNull();
    for (const el of container.querySelectorAll('*')) {
      for (const attr of el.getAttributeNames()) expect(attr.startsWith('on'), `${el.tagName} ${attr}`).toBe(false);
    }
    for (const a of container.querySelectorAll('a')) expect(a.getAttribute('href')).toMatch(/^https?:\/\//);
  });
});
