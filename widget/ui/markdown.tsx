/**
 * Answers as safe Markdown: parsed straight into Preact nodes, so no HTML string is ever
 * interpreted. Raw HTML stays text, only http(s) links become links (new tab, no opener, no
 * referrer), and an image becomes a link to it: no remote image loads in the visitor's page.
 */
import type { ComponentChildren, VNode } from 'preact';

const SAFE_URL = /^https?:\/\/[^\s<>"]+$/i;

export function safeUrl(url: string): string | null {
  const trimmed = url.trim();
  if (!SAFE_URL.test(trimmed)) return null;
  try {
    const parsed = new URL(trimmed);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

export function ExternalLink({ href, children }: { href: string; children: ComponentChildren }) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

// Inline tokens, in order of precedence: code, image, link, autolink, bold, italic.
const INLINE =
  /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|!\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|\*([^*\s][^*]*?)\*|\b_([^_\s][^_]*?)_\b/;

export function inline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let rest = text;
  while (rest) {
    const m = INLINE.exec(rest);
    if (!m) {
      out.push(...lines(rest));
      break;
    }
    if (m.index) out.push(...lines(rest.slice(0, m.index)));
    const [whole, , code, imgAlt, imgUrl, linkText, linkUrl, auto, bold1, bold2, em1, em2] = m;
    if (code !== undefined) out.push(<code>{code.trim() || code}</code>);
    else if (imgUrl !== undefined) {
      const href = safeUrl(imgUrl);
      out.push(href ? <ExternalLink href={href}>{imgAlt || href}</ExternalLink> : imgAlt);
    } else if (linkUrl !== undefined) {
      const href = safeUrl(linkUrl);
      out.push(href ? <ExternalLink href={href}>{inline(linkText)}</ExternalLink> : inline(linkText));
    } else if (auto !== undefined) {
      const href = safeUrl(auto);
      out.push(href ? <ExternalLink href={href}>{auto}</ExternalLink> : auto);
    } else if (bold1 !== undefined || bold2 !== undefined) out.push(<strong>{inline(bold1 ?? bold2)}</strong>);
    else out.push(<em>{inline(em1 ?? em2)}</em>);
    rest = rest.slice(m.index + whole.length);
  }
  return out;
}

function lines(text: string): ComponentChildren[] {
  const parts = text.split('\n');
  return parts.flatMap((p, i) => (i ? [<br />, p] : [p]));
}

type Block =
  | { kind: 'p'; text: string }
  | { kind: 'h'; level: number; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'quote'; text: string }
  | { kind: 'ul' | 'ol'; items: string[]; start: number };

const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const NUMBERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;

export function blocks(source: string): Block[] {
  const src = source.replace(/\r\n?/g, '\n').split('\n');
  const out: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) out.push({ kind: 'p', text: para.join('\n') });
    para = [];
  };
  for (let i = 0; i < src.length; i++) {
    const line = src[i];
    const fence = /^\s{0,3}(```|~~~)/.exec(line);
    if (fence) {
      flush();
      const body: string[] = [];
      for (i++; i < src.length && !src[i].trimStart().startsWith(fence[1]); i++) body.push(src[i]);
      out.push({ kind: 'code', text: body.join('\n') });
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      out.push({ kind: 'h', level: heading[1].length, text: heading[2] });
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      flush();
      const body: string[] = [];
      for (; i < src.length && /^\s{0,3}>/.test(src[i]); i++) body.push(src[i].replace(/^\s{0,3}>\s?/, ''));
      i--;
      out.push({ kind: 'quote', text: body.join('\n') });
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = NUMBERED.exec(line);
    if (bullet || numbered) {
      flush();
      const kind = bullet ? 'ul' : 'ol';
      const pattern = bullet ? BULLET : NUMBERED;
      const items: string[] = [];
      for (; i < src.length; i++) {
        const m = pattern.exec(src[i]);
        if (m) items.push(bullet ? m[1] : m[2]);
        else if (src[i].trim() && /^\s{2,}/.test(src[i]) && items.length)
          items[items.length - 1] += '\n' + src[i].trim();
        else break;
      }
      i--;
      out.push({ kind, items, start: numbered ? Number(numbered[1]) : 1 });
      continue;
    }
    para.push(line);
  }
  flush();
  return out;
}

export function Markdown({ text }: { text: string }): VNode {
  return (
    <div class="md">
      {blocks(text).map((b) => {
        switch (b.kind) {
          case 'p':
            return <p>{inline(b.text)}</p>;
          case 'h':
            // Headings inside a chat bubble read as bold lines; h3-h6 keep the outline sane.
            return b.level <= 2 ? (
              <p class="md-h">
                <strong>{inline(b.text)}</strong>
              </p>
            ) : (
              <p>
                <strong>{inline(b.text)}</strong>
              </p>
            );
          case 'code':
            return (
              <pre>
                <code>{b.text}</code>
              </pre>
            );
          case 'quote':
            return <blockquote>{inline(b.text)}</blockquote>;
          case 'ul':
            return (
              <ul>
                {b.items.map((item) => (
                  <li>{inline(item)}</li>
                ))}
              </ul>
            );
          case 'ol':
            return (
              <ol start={b.start}>
                {b.items.map((item) => (
                  <li>{inline(item)}</li>
                ))}
              </ol>
            );
        }
      })}
    </div>
  );
}
