import { afterAll, describe, expect, it } from 'vitest';
import { chunkDocument } from '../../../server/domain/knowledge/chunk.js';
import {
  closeExtractionWorkers,
  extract,
  ExtractionError,
  parseCsv,
} from '../../../server/adapters/extraction/index.js';
import { buildDocx, buildPdf, prose } from '../domain/knowledge/fixtures.js';

afterAll(closeExtractionWorkers);

const page = `<!doctype html>
<html lang="en-GB">
<head>
  <meta charset="utf-8">
  <title>Getting started | Acme Docs</title>
  <link rel="canonical" href="/docs/start">
  <script>window.tracking = "SECRET_SCRIPT_TEXT";</script>
  <style>.x { color: red } /* STYLE_TEXT */</style>
</head>
<body>
  <nav class="menu"><a href="/">Home</a> <a href="/docs/">Docs</a> <a href="/pricing">NAV_TEXT Pricing</a></nav>
  <div role="navigation"><a href="/sitemap">ROLE_NAV_TEXT</a></div>
  <main>
    <article>
      <h1>Getting started</h1>
      <p>Acme turns your documents into answers. This guide walks through installing it, configuring
         the server and checking that everything works, in about ten minutes of reading.</p>
      <h2>Install</h2>
      <p>Download the package for your platform and run the installer. It asks for a folder and an
         administrator password, then copies the files and registers the service.</p>
      <h3>On Linux</h3>
      <p>Use the <a href="packages.html#deb">Debian package</a> or the tarball; both install a systemd unit
         that starts the server at boot and restarts it after a crash.</p>
      <h3>On Windows</h3>
      <p>Run the MSI as an administrator. <script>document.write("INLINE_SCRIPT")</script>The installer adds
         a service that starts with Windows and a shortcut to the configuration file.</p>
      <h2>Configure</h2>
      <p>Open the configuration file and set the port, the data folder and the address people will use.</p>
      <table><tr><th>Setting</th><th>Default</th></tr><tr><td>port</td><td>8080</td></tr></table>
      <pre><code>acme serve --port 8080
acme check</code></pre>
      <p hidden>HIDDEN_TEXT</p>
    </article>
  </main>
  <footer><a href="https://twitter.com/acme">FOOTER_TEXT</a> <a href="mailto:hi@acme.test">mail</a> <a href="#top">top</a></footer>
</body>
</html>`;

describe('HTML', () => {
  it('keeps the main content with its heading structure and drops scripts, styles and navigation', async () => {
    const doc = await extract({
      bytes: Buffer.from(page),
      kind: 'html',
      url: 'https://acme.test/docs/start?ref=x#intro',
    });
    expect(doc.kind).toBe('html');
    expect(doc.title).toMatch(/Getting started/);
    expect(doc.language).toBe('en-GB');
    expect(doc.canonicalUrl).toBe('https://acme.test/docs/start');
    expect(doc.sections.map((s) => s.headingPath)).toEqual([
      ['Getting started'],
      ['Getting started', 'Install'],
      ['Getting started', 'Install', 'On Linux'],
      ['Getting started', 'Install', 'On Windows'],
      ['Getting started', 'Configure'],
    ]);
    const all = doc.sections.map((s) => s.text).join('\n');
    for (const noise of [
      'SECRET_SCRIPT_TEXT',
      'STYLE_TEXT',
      'NAV_TEXT',
      'ROLE_NAV_TEXT',
      'INLINE_SCRIPT',
      'HIDDEN_TEXT',
      'FOOTER_TEXT',
    ]) {
      expect(all).not.toContain(noise);
    }
    expect(doc.sections[2].text).toBe(
      'Use the Debian package or the tarball; both install a systemd unit that starts the server at boot and restarts it after a crash.',
    );
    const configure = doc.sections[4].text.split('\n\n');
    expect(configure).toContain('Setting | Default\nport | 8080');
    expect(configure).toContain('acme serve --port 8080\nacme check');
  });

  it('collects absolute links from the whole page for the crawler', async () => {
    const doc = await extract({ bytes: Buffer.from(page), kind: 'html', url: 'https://acme.test/docs/start' });
    expect(doc.links).toEqual(
      expect.arrayContaining([
        'https://acme.test/',
        'https://acme.test/docs/',
        'https://acme.test/pricing',
        'https://acme.test/docs/packages.html',
        'https://twitter.com/acme',
      ]),
    );
    expect(doc.links!.every((l) => /^https?:\/\//.test(l) && !l.includes('#'))).toBe(true);
    expect(doc.links).not.toContain('https://acme.test/docs/start'); // "#top" is this page
    expect(new Set(doc.links).size).toBe(doc.links!.length);
  });

  it('falls back to the body text when Readability finds no article', async () => {
    const short =
      '<html><head><title>Opening hours</title></head><body><nav>Menu</nav><div>Mon-Fri 9-17</div><div>Closed on Sundays</div></body></html>';
    const doc = await extract({ bytes: Buffer.from(short), kind: 'html' });
    expect(doc.title).toBe('Opening hours');
    expect(doc.sections).toEqual([{ headingPath: [], text: 'Mon-Fri 9-17\n\nClosed on Sundays' }]);
  });

  it('decodes legacy charsets declared in the page', async () => {
    const latin1 = Buffer.from(
      '<html><head><meta charset="windows-1252"><title>Caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e</p></body></html>',
      'latin1',
    );
    const doc = await extract({ bytes: latin1, kind: 'html' });
    expect(doc.title).toBe('Café');
    expect(doc.sections[0].text).toBe('Crème brûlée');
  });
});

describe('PDF', () => {
  it('keeps page numbers and headings from type sizes, drops page-number footers', async () => {
    const pdf = await buildPdf(
      [
        { heading: 'Introduction', paragraphs: [prose(120, 1), prose(60, 2)] },
        { heading: 'Installation', paragraphs: [prose(140, 3)] },
        { heading: 'Troubleshooting', paragraphs: [prose(130, 4)] },
      ],
      'Acme Manual',
    );
    const doc = await extract({ bytes: pdf, kind: 'pdf', filename: 'manual.pdf' });
    expect(doc.title).toBe('Acme Manual');
    expect(doc.sections.map((s) => [s.page, s.headingPath])).toEqual([
      [1, ['Introduction']],
      [2, ['Installation']],
      [3, ['Troubleshooting']],
    ]);
    expect(doc.sections[0].text.split('\n\n')).toEqual([prose(120, 1), prose(60, 2)]);
    expect(doc.sections[2].text).toBe(prose(130, 4));

    const chunks = chunkDocument(doc, { targetTokens: 120, overlapTokens: 20 });
    expect(new Set(chunks.map((c) => c.location.page))).toEqual(new Set([1, 2, 3]));
    for (const c of chunks) {
      const section = doc.sections.find((s) => s.page === c.location.page)!;
      expect(section.text).toContain(c.text);
      expect(c.headingPath).toEqual(section.headingPath);
    }
  });

  it('titles an untitled PDF by its first heading, else its file name', async () => {
    expect(
      (await extract({ bytes: await buildPdf([{ heading: 'Price list', paragraphs: [prose(30)] }]), kind: 'pdf' }))
        .title,
    ).toBe('Price list');
    expect(
      (await extract({ bytes: await buildPdf([{ paragraphs: [prose(30)] }]), kind: 'pdf', filename: 'q3_report.pdf' }))
        .title,
    ).toBe('q3 report');
  });
});

describe('DOCX', () => {
  it('turns Heading1/Heading2 paragraphs into heading paths', async () => {
    const docx = await buildDocx([
      { style: 'Heading1', text: 'Employee handbook' },
      { text: 'Welcome aboard. This handbook explains how we work.' },
      { style: 'Heading2', text: 'Holidays' },
      { text: 'Everyone gets 28 days of paid holiday & public holidays.' },
      { text: 'Ask your manager two weeks ahead.' },
      { style: 'Heading2', text: 'Expenses' },
      { text: 'Keep receipts <all of them>.' },
      { style: 'Heading1', text: 'Appendix' },
      { text: 'Forms live on the intranet.' },
    ]);
    const doc = await extract({ bytes: docx, kind: 'docx', filename: 'handbook.docx' });
    expect(doc.kind).toBe('docx');
    expect(doc.title).toBe('Employee handbook');
    expect(doc.links).toBeUndefined();
    expect(doc.sections).toEqual([
      { headingPath: ['Employee handbook'], text: 'Welcome aboard. This handbook explains how we work.' },
      {
        headingPath: ['Employee handbook', 'Holidays'],
        text: 'Everyone gets 28 days of paid holiday & public holidays.\n\nAsk your manager two weeks ahead.',
      },
      { headingPath: ['Employee handbook', 'Expenses'], text: 'Keep receipts <all of them>.' },
      { headingPath: ['Appendix'], text: 'Forms live on the intranet.' },
    ]);
  });
});

describe('Markdown', () => {
  const md = `---
title: Deploying Acme
lang: en
---

Intro paragraph before any heading.

# Deploy

Read the [requirements](https://acme.test/req) first. ![diagram](d.png)

Setext heading
--------------

Text under the setext heading.

\`\`\`sh
# not a heading: a shell comment
acme deploy --env prod
\`\`\`

### Rollback ###

<!-- an editor's note that readers never see -->
Run \`acme rollback\`.

Another title
=============

Last words.
`;

  it('cuts at ATX and setext headings, keeps code fences verbatim and reads front matter', async () => {
    const doc = await extract({ bytes: Buffer.from(md), kind: 'markdown', filename: 'deploy.md' });
    expect(doc.title).toBe('Deploying Acme');
    expect(doc.language).toBe('en');
    expect(doc.sections).toEqual([
      { headingPath: [], text: 'Intro paragraph before any heading.' },
      { headingPath: ['Deploy'], text: 'Read the requirements first. diagram' },
      {
        headingPath: ['Deploy', 'Setext heading'],
        text: 'Text under the setext heading.\n\n```sh\n# not a heading: a shell comment\nacme deploy --env prod\n```',
      },
      { headingPath: ['Deploy', 'Setext heading', 'Rollback'], text: 'Run `acme rollback`.' },
      { headingPath: ['Another title'], text: 'Last words.' },
    ]);
  });
});

describe('CSV', () => {
  const csv = 'name,city,notes\r\n"Smith, J","New\nYork","said ""hi"""\r\nAda,London,\r\n\r\nLinus,,"kernel, git"';

  it('parses RFC 4180: quoted commas, line breaks and doubled quotes', () => {
    expect(parseCsv(csv)).toEqual([
      ['name', 'city', 'notes'],
      ['Smith, J', 'New\nYork', 'said "hi"'],
      ['Ada', 'London', ''],
      ['Linus', '', 'kernel, git'],
    ]);
    expect(parseCsv('a,"unterminated\nb,c')).toEqual([['a', 'unterminated\nb,c']]);
    expect(parseCsv('x;y\n1;2', ';')).toEqual([
      ['x', 'y'],
      ['1', '2'],
    ]);
  });

  it('writes each row as "header: value" pairs, in sections of rows', async () => {
    const doc = await extract({ bytes: Buffer.from(csv), kind: 'csv', filename: 'people.csv' });
    expect(doc.title).toBe('people');
    expect(doc.sections).toEqual([
      {
        headingPath: [],
        text: 'name: Smith, J; city: New York; notes: said "hi"\n\nname: Ada; city: London\n\nname: Linus; notes: kernel, git',
      },
    ]);
    const many = ['id,value', ...Array.from({ length: 60 }, (_, i) => `${i},v${i}`)].join('\n');
    const big = await extract({ bytes: Buffer.from(many), kind: 'csv' });
    expect(big.sections.map((s) => s.text.split('\n\n').length)).toEqual([25, 25, 10]);
  });

  it('detects semicolon and tab delimiters', async () => {
    const doc = await extract({ bytes: Buffer.from('a\tb\n1\t2\n'), kind: 'csv' });
    expect(doc.sections[0].text).toBe('a: 1; b: 2');
  });
});

describe('plain text and errors', () => {
  it('keeps paragraphs and titles by file name', async () => {
    const doc = await extract({
      bytes: Buffer.from('\uFEFFFirst paragraph\nstill first.\r\n\r\n\r\nSecond one.  \n'),
      kind: 'text',
      filename: 'notes/meeting_notes.txt',
    });
    expect(doc).toEqual({
      kind: 'text',
      title: 'meeting notes',
      sections: [{ headingPath: [], text: 'First paragraph\nstill first.\n\nSecond one.' }],
    });
  });

  it('refuses an unknown kind as UNSUPPORTED', async () => {
    const error = await extract({ bytes: Buffer.from('x'), kind: 'exe' as never }).catch((e) => e);
    expect(error).toBeInstanceOf(ExtractionError);
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.hint).toBeTruthy();
  });
});
