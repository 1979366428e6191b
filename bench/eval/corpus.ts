/**
 * The answer eval's corpora (bench/eval/corpora/): five small websites written for it, each with
 * its questions, read from two plain-text files per corpus so a page or a question is one edit.
 *
 * `<name>.site.txt`: a header (`product:` the product's name, `lang:` the site's main language,
 * `about:` what kind of site it is, for the report), then pages, each opened by `=== /path | Title` (or `=== /path | Title | lang`),
 * paragraphs separated by blank lines, `## Heading` for sections. Served as HTML by `serveCorpus`
 * (every page links every other in its <nav>, so the crawler finds them all from `/`).
 *
 * `<name>.questions.txt`: one question a line, `kind split /page[,/page…] | question`, where kind
 * is direct, reworded (shares no content word with the answering page beyond the product's
 * name: `checkQuestions` verifies it), typo, short, xlang (asked in another language than the
 * page) or oos (near-topic, not answered by the site: page `-`), and split is `t` (tuning),
 * `h` (held out) or `f` (fresh: written after the parameters were chosen, by someone who had not
 * seen them). The split is fixed here: parameters are chosen on the `t` questions only.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { terms } from '../../server/domain/answers/text.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'corpora');

export const CORPORA = [
  'api-reference',
  'guide',
  'help-centre',
  'shop',
  'mixed-language',
  'small-business',
  'long-pages',
] as const;
export type CorpusName = (typeof CORPORA)[number];
export const KINDS = ['direct', 'reworded', 'typo', 'short', 'xlang', 'oos'] as const;
export type Kind = (typeof KINDS)[number];

export interface Page {
  path: string;
  title: string;
  lang: string;
  /** Sections in order; the first may have no heading (the text under the title). */
  sections: { heading: string | null; paragraphs: string[] }[];
}

export interface Question {
  q: string;
  kind: Kind;
  /** `fresh`: written after the parameters were chosen, by someone who had not seen them (a check on held-out). */
  split: 'tuning' | 'held-out' | 'fresh';
  /** Paths of the pages that answer it (empty for oos). */
  pages: string[];
}

export interface Corpus {
  name: CorpusName;
  product: string;
  lang: string;
  about: string;
  pages: Page[];
  questions: Question[];
}

function parseSite(text: string): Omit<Corpus, 'name' | 'questions'> {
  const header: Record<string, string> = {};
  const pages: Page[] = [];
  let page: Page | null = null;
  let paragraph: string[] = [];
  const flush = () => {
    if (page && paragraph.length) page.sections.at(-1)!.paragraphs.push(paragraph.join(' '));
    paragraph = [];
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('=== ')) {
      flush();
      const [path, title, lang] = line
        .slice(4)
        .split('|')
        .map((s) => s.trim());
      page = { path, title, lang: lang || header.lang || 'en', sections: [{ heading: null, paragraphs: [] }] };
      pages.push(page);
    } else if (!page) {
      const m = /^(\w+):\s*(.*)$/.exec(line);
      if (m) header[m[1]] = m[2];
    } else if (line.startsWith('## ')) {
      flush();
      page.sections.push({ heading: line.slice(3).trim(), paragraphs: [] });
    } else if (!line) flush();
    else paragraph.push(line);
  }
  flush();
  return { product: header.product ?? '', lang: header.lang ?? 'en', about: header.about ?? '', pages };
}

function parseQuestions(text: string, pages: Set<string>, file: string): Question[] {
  const out: Question[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(\w+)\s+([thf])\s+(\S+)\s*\|\s*(.+)$/.exec(line);
    if (!m || !(KINDS as readonly string[]).includes(m[1])) throw new Error(`${file}: cannot read "${line}"`);
    const kind = m[1] as Kind;
    const answering = m[3] === '-' ? [] : m[3].split(',');
    if ((kind === 'oos') !== (answering.length === 0))
      throw new Error(`${file}: an oos question has no page, every other one has: "${line}"`);
    for (const p of answering) if (!pages.has(p)) throw new Error(`${file}: no page ${p} ("${line}")`);
    out.push({
      q: m[4].trim(),
      kind,
      split: ({ t: 'tuning', h: 'held-out', f: 'fresh' } as const)[m[2] as 't' | 'h' | 'f'],
      pages: answering,
    });
  }
  return out;
}

export function loadCorpus(name: CorpusName): Corpus {
  const site = parseSite(readFileSync(join(DIR, `${name}.site.txt`), 'utf8'));
  const questions = parseQuestions(
    readFileSync(join(DIR, `${name}.questions.txt`), 'utf8'),
    new Set(site.pages.map((p) => p.path)),
    `${name}.questions.txt`,
  );
  return { name, ...site, questions };
}

/** Every word of a page a reader sees: title, headings, paragraphs. */
export function pageText(page: Page): string {
  return [page.title, ...page.sections.flatMap((s) => [s.heading ?? '', ...s.paragraphs])].join('\n');
}

export interface QuestionCheck {
  /** In-scope questions, and how many are marked reworded. */
  inScope: number;
  reworded: number;
  oos: number;
  /** Reworded questions that do share a content word with an answering page (should be none). */
  overlapping: { q: string; shared: string[] }[];
}

/** Counts and verifies the corpus's questions against the issue's rules. */
export function checkQuestions(corpus: Corpus): QuestionCheck {
  const product = new Set(terms(corpus.product));
  const byPath = new Map(corpus.pages.map((p) => [p.path, new Set(terms(pageText(p)))]));
  const inScope = corpus.questions.filter((q) => q.kind !== 'oos');
  const reworded = inScope.filter((q) => q.kind === 'reworded');
  const overlapping = reworded.flatMap((q) => {
    const shared = [...new Set(terms(q.q))].filter(
      (t) => !product.has(t) && q.pages.some((p) => byPath.get(p)!.has(t)),
    );
    return shared.length ? [{ q: q.q, shared }] : [];
  });
  return {
    inScope: inScope.length,
    reworded: reworded.length,
    oos: corpus.questions.length - inScope.length,
    overlapping,
  };
}

// ---- Serving -----------------------------------------------------------------------------------

const escape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const inline = (s: string) => escape(s).replace(/`([^`]+)`/g, '<code>$1</code>');

export function renderPage(corpus: Corpus, page: Page | null): string {
  const nav = corpus.pages.map((p) => `<li><a href="${p.path}">${escape(p.title)}</a></li>`).join('');
  const title = page ? page.title : corpus.product;
  const body = page
    ? page.sections
        .map(
          (s) =>
            `${s.heading ? `<h2>${inline(s.heading)}</h2>` : ''}${s.paragraphs.map((p) => `<p>${inline(p)}</p>`).join('')}`,
        )
        .join('\n')
    : `<p>Welcome to ${inline(corpus.product)}. Choose a page from the menu.</p>`;
  return `<!doctype html><html lang="${page?.lang ?? corpus.lang}"><head><meta charset="utf-8"><title>${escape(title)} - ${escape(corpus.product)}</title></head>
<body><header><a href="/">${escape(corpus.product)}</a></header><nav><ul>${nav}</ul></nav>
<main><article><h1>${escape(title)}</h1>
${body}
</article></main><footer><p>© ${escape(corpus.product)}</p></footer></body></html>`;
}

export interface CorpusSite {
  url: string;
  close(): Promise<void>;
}

/** Serves the corpus on 127.0.0.1 (an ephemeral port) for the crawler. */
export async function serveCorpus(corpus: Corpus): Promise<CorpusSite> {
  const pages = new Map<string, string>([['/', renderPage(corpus, null)]]);
  for (const p of corpus.pages) pages.set(p.path, renderPage(corpus, p));
  const server = createServer((req, res) => {
    const path = decodeURI((req.url ?? '/').split(/[?#]/)[0]);
    if (path === '/robots.txt')
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    const html = pages.get(path);
    if (html === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
