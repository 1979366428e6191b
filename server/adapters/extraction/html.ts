import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { baseTitle, collapseSpaces } from './decode.js';
import type { DocumentKind, ExtractedDocument, Section } from '../../domain/knowledge/documents.js';

const ELEMENT = 1;
const TEXT = 3;

/** Never text for a reader. */
const SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'canvas',
  'iframe',
  'object',
  'embed',
  'nav',
  'button',
  'select',
  'option',
  'input',
  'textarea',
  'head',
  'title',
  'meta',
  'link',
  'dialog',
]);
/** Page chrome, dropped only when Readability did not pick the main content for us. */
const CHROME = new Set(['header', 'footer', 'aside']);
/** Boundaries between paragraphs. */
const BLOCK = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'aside',
  'li',
  'ul',
  'ol',
  'dl',
  'dt',
  'dd',
  'blockquote',
  'figure',
  'figcaption',
  'table',
  'caption',
  'address',
  'details',
  'summary',
  'hr',
  'form',
  'fieldset',
  'legend',
  'body',
  'center',
  'hgroup',
]);
/** Inside a table: rows end a line, cells are separated, the table itself is the paragraph. */
const TABLE_PARTS = new Set(['tr', 'td', 'th']);
const HEADING = /^h([1-6])$/;
/** Stands for <br> while spaces are collapsed; never occurs in text (private use). */
const BR = '\uE000';
const CELL = '\uE001';
const MAX_LINKS = 5_000;
const LEVEL_ATTR = 'data-parley-level';
const ID_ATTR = 'data-parley-heading';
const MAX_HEADING_CHARS = 200;
/** Readability scores every element up to five times; past this many elements the plain walk is used. */
const READABILITY_MAX_ELEMENTS = 30_000;
/** Less main text than this from Readability means it missed: fall back to the whole body. */
const READABILITY_MIN_CHARS = 140;

export interface HtmlOptions {
  url?: string;
  filename?: string;
  kind?: Extract<DocumentKind, 'html' | 'docx'>;
  /** Pick the main content with Readability (web pages); off for documents converted to HTML. */
  readability?: boolean;
}

const lower = (el: Element) => el.tagName.toLowerCase();

function isHidden(el: Element): boolean {
  if (el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true') return true;
  const style = el.getAttribute('style');
  return !!style && /display\s*:\s*none|visibility\s*:\s*hidden/i.test(style);
}

function absolute(href: string | null | undefined, base: string | undefined): URL | null {
  if (!href) return null;
  try {
    const u = new URL(href.trim(), base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

function ensureDocument(html: string): string {
  return /<(html|body)[\s>]/i.test(html.slice(0, 4096))
    ? html
    : `<!doctype html><html><head></head><body>${html}</body></html>`;
}

/**
 * Walks the content in document order without recursion (hostile pages nest deeply) and cuts it
 * into sections at h1-h6: each heading replaces the headings of its level and below on the path.
 * Paragraphs are block elements; <br> is a line break; table rows are lines with " | " between cells;
 * <pre> keeps its whitespace.
 */
export function walkSections(
  root: Element,
  options: { dropChrome?: boolean; seed?: { level: number; text: string } } = {},
): { sections: Section[]; headings: string[] } {
  const sections: Section[] = [];
  const headings: string[] = [];
  const path: { level: number; text: string }[] = options.seed ? [options.seed] : [];
  let paragraphs: string[] = [];
  let pieces: string[] = [];

  const flushParagraph = () => {
    if (pieces.length === 0) return;
    const text = collapseSpaces(pieces.join(''))
      .replace(new RegExp(`\\s*${CELL}\\s*(?=${BR}|$)`, 'g'), '')
      .replace(new RegExp(`\\s*${CELL}\\s*`, 'g'), ' | ')
      .replace(new RegExp(`\\s*${BR}\\s*`, 'g'), '\n')
      .trim();
    pieces = [];
    if (text) paragraphs.push(text);
  };
  const flushSection = () => {
    flushParagraph();
    if (paragraphs.length) sections.push({ headingPath: path.map((h) => h.text), text: paragraphs.join('\n\n') });
    paragraphs = [];
  };

  // Explicit stack: a node to enter, or an element to leave (so blocks end their paragraph).
  const stack: { node: Node; leave: boolean }[] = [{ node: root, leave: false }];
  while (stack.length) {
    const { node, leave } = stack.pop()!;
    if (node.nodeType === TEXT) {
      const value = node.nodeValue;
      if (value) pieces.push(value);
      continue;
    }
    if (node.nodeType !== ELEMENT) continue;
    const el = node as Element;
    const tag = lower(el);
    if (leave) {
      // A table is one paragraph: a line per row, " | " between cells.
      if (tag === 'td' || tag === 'th') pieces.push(CELL);
      else if (tag === 'tr') pieces.push(BR);
      else if (BLOCK.has(tag)) flushParagraph();
      continue;
    }
    if (
      SKIP.has(tag) ||
      isHidden(el) ||
      (options.dropChrome && CHROME.has(tag)) ||
      el.getAttribute('role') === 'navigation'
    )
      continue;
    const h = HEADING.exec(tag);
    if (h) {
      const text = collapseSpaces(el.textContent ?? '').slice(0, MAX_HEADING_CHARS);
      if (!text) continue;
      flushSection();
      // Readability turns h1 into h2; the level recorded before it ran is the author's.
      const level = Number(el.getAttribute(LEVEL_ATTR) ?? h[1]) || Number(h[1]);
      while (path.length && path[path.length - 1].level >= level) path.pop();
      path.push({ level, text });
      headings.push(text);
      continue;
    }
    if (tag === 'pre') {
      flushParagraph();
      const code = (el.textContent ?? '').replace(/\r\n?/g, '\n').replace(/^\n+|\s+$/g, '');
      if (code.trim()) paragraphs.push(code);
      continue;
    }
    if (tag === 'br') {
      pieces.push(BR);
      continue;
    }
    if (tag === 'img') continue;
    if (BLOCK.has(tag) || TABLE_PARTS.has(tag)) {
      if (BLOCK.has(tag)) flushParagraph();
      stack.push({ node: el, leave: true });
    }
    const children = el.childNodes;
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], leave: false });
  }
  flushSection();
  return { sections, headings };
}

/** Readability's own test: the share of the heading's words (by length) that the title also has. */
function titleSimilarity(title: string, heading: string): number {
  const words = (s: string) =>
    s
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
  const inTitle = new Set(words(title));
  const own = words(heading);
  const total = own.join(' ').length;
  if (!total) return 0;
  return 1 - own.filter((w) => !inTitle.has(w)).join(' ').length / total;
}

/**
 * Readability removes the heading that repeats the article title; that heading is the root of
 * the page's outline, so the walk starts under it again (else "Install" loses its parent).
 */
function droppedTitleHeading(
  headings: Element[],
  content: Element,
  title: string | undefined,
): { level: number; text: string } | undefined {
  if (!title) return undefined;
  for (const h of headings) {
    const text = collapseSpaces(h.textContent ?? '').slice(0, MAX_HEADING_CHARS);
    if (!text || titleSimilarity(title, text) <= 0.75) continue;
    if (content.querySelector(`[${ID_ATTR}="${h.getAttribute(ID_ATTR)}"]`)) return undefined;
    return { level: Number(h.getAttribute(LEVEL_ATTR)) || 1, text };
  }
  return undefined;
}

function meta(document: Document, selector: string): string | undefined {
  const value = document.querySelector(selector)?.getAttribute('content');
  return value ? collapseSpaces(value) || undefined : undefined;
}

/** Links for the crawler: absolute http(s), fragment removed, deduplicated, not the page itself. */
function collectLinks(document: Document, base: string | undefined, self: string | undefined): string[] {
  const out = new Set<string>();
  for (const a of document.querySelectorAll('a[href], area[href]')) {
    const u = absolute(a.getAttribute('href'), base);
    if (!u) continue;
    u.hash = '';
    const href = u.href;
    if (href !== self) out.add(href);
    if (out.size >= MAX_LINKS) break;
  }
  return [...out];
}

function urlTitle(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    const last = decodeURIComponent(u.pathname.split('/').filter(Boolean).pop() ?? '');
    return baseTitle(last)?.replace(/[-_]+/g, ' ') || u.hostname;
  } catch {
    return undefined;
  }
}

/**
 * HTML -> document. Web pages: metadata and links are read from the whole page, then
 * Readability picks the main content (falling back to the body without page chrome when it
 * finds nothing), then the content is cut into sections at its headings.
 */
export function htmlDocument(html: string, options: HtmlOptions = {}): ExtractedDocument {
  const kind = options.kind ?? 'html';
  const { document } = parseHTML(ensureDocument(html)) as unknown as { document: Document };
  const pageUrl = absolute(options.url, undefined);
  if (pageUrl) pageUrl.hash = '';
  const base =
    absolute(document.querySelector('base[href]')?.getAttribute('href'), pageUrl?.href)?.href ?? pageUrl?.href;

  const language =
    (document.documentElement?.getAttribute('lang') || meta(document, 'meta[http-equiv="content-language" i]'))
      ?.trim()
      .split(/[\s,]/)[0] || undefined;
  let canonicalUrl: string | undefined;
  for (const link of document.querySelectorAll('link[rel][href]')) {
    if (!/(^|\s)canonical(\s|$)/i.test(link.getAttribute('rel') ?? '')) continue;
    canonicalUrl = absolute(link.getAttribute('href'), base)?.href;
    if (canonicalUrl) break;
  }
  const links = kind === 'html' ? collectLinks(document, base, pageUrl?.href) : undefined;
  const docTitle = collapseSpaces(document.querySelector('title')?.textContent ?? '') || undefined;
  const ogTitle = meta(document, 'meta[property="og:title"]');

  // Noise goes before Readability sees the page, so it cannot pick a menu as the article.
  for (const el of document.querySelectorAll('script, style, noscript, template, nav, [role="navigation"]'))
    el.remove();
  const originalHeadings = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')];
  originalHeadings.forEach((el, i) => {
    el.setAttribute(LEVEL_ATTR, el.tagName.slice(1));
    el.setAttribute(ID_ATTR, String(i));
  });

  let sections: Section[] = [];
  let headings: string[] = [];
  let readabilityTitle: string | undefined;
  if (options.readability !== false && document.body) {
    const elements = document.getElementsByTagName('*').length;
    if (elements <= READABILITY_MAX_ELEMENTS) {
      try {
        const article = new Readability<Element>(document.cloneNode(true) as Document, {
          serializer: (node) => node as Element,
          maxElemsToParse: READABILITY_MAX_ELEMENTS,
        }).parse();
        readabilityTitle = article?.title ? collapseSpaces(article.title) : undefined;
        if (article?.content && (article.textContent ?? '').trim().length >= READABILITY_MIN_CHARS) {
          const seed = droppedTitleHeading(originalHeadings, article.content, readabilityTitle);
          ({ sections, headings } = walkSections(article.content, { seed }));
        }
      } catch {
        // Readability gives up on odd documents; the plain walk below still reads them.
      }
    }
  }
  if (sections.length === 0 && document.body)
    ({ sections, headings } = walkSections(document.body, { dropChrome: options.readability !== false }));
  if (sections.length === 0 && document.body) ({ sections, headings } = walkSections(document.body));

  const firstH1 = collapseSpaces(document.querySelector('h1')?.textContent ?? '') || undefined;
  const title =
    (kind === 'html' ? readabilityTitle || docTitle || ogTitle || firstH1 || headings[0] : headings[0] || docTitle) ||
    baseTitle(options.filename) ||
    urlTitle(pageUrl?.href) ||
    'Untitled';
  return {
    kind,
    title,
    ...(language ? { language } : {}),
    sections,
    ...(canonicalUrl ? { canonicalUrl } : {}),
    ...(links ? { links } : {}),
  };
}
