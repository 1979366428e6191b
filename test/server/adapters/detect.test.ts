import { describe, expect, it } from 'vitest';
import { detectKind } from '../../../server/adapters/extraction/index.js';
import { buildDocx, buildPdf, buildZip, PNG } from '../domain/knowledge/fixtures.js';

const html = Buffer.from('<!DOCTYPE html><html><head><title>x</title></head><body><p>Hello</p></body></html>');

describe('detectKind', () => {
  it('decides by content, not by the name or type the client claims', async () => {
    expect(await detectKind(html, { filename: 'report.pdf', contentType: 'application/pdf' })).toBe('html');
    const pdf = await buildPdf([{ paragraphs: ['hello'] }]);
    expect(await detectKind(pdf, { filename: 'notes.txt', contentType: 'text/plain' })).toBe('pdf');
    expect(await detectKind(PNG, { filename: 'scan.pdf', contentType: 'application/pdf' })).toBeNull();
    expect(await detectKind(await buildZip(), { filename: 'letter.docx' })).toBeNull();
    expect(await detectKind(await buildDocx([{ text: 'Hi' }]), { filename: 'upload.bin' })).toBe('docx');
  });

  it('refuses binary and other formats', async () => {
    expect(await detectKind(Buffer.alloc(0))).toBeNull();
    expect(
      await detectKind(Buffer.from('MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00', 'latin1'), {
        filename: 'a.txt',
      }),
    ).toBeNull();
    expect(await detectKind(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]))).toBeNull();
    expect(
      await detectKind(
        Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><text>hi</text></svg>'),
        { filename: 'a.html' },
      ),
    ).toBeNull();
    expect(await detectKind(Buffer.from('<?xml version="1.0"?><rss version="2.0"><channel/></rss>'))).toBeNull();
  });

  it('finds a PDF header after leading junk on its own line, but not one quoted inside text', async () => {
    expect(await detectKind(Buffer.from('junk\n%PDF-1.4\n...'))).toBe('pdf');
    expect(await detectKind(Buffer.from('The header of a PDF is %PDF-1.7, written first.'))).toBe('text');
  });

  it('recognises HTML by its leading markup, XHTML included', async () => {
    expect(await detectKind(Buffer.from('\n\n<html lang="en"><body>x</body></html>'))).toBe('html');
    expect(
      await detectKind(
        Buffer.from(
          '<?xml version="1.0"?>\n<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>',
        ),
      ),
    ).toBe('html');
    expect(await detectKind(Buffer.from('<!-- saved page --><div class="x"><p>Hi</p></div>'))).toBe('html');
  });

  it('lets the name break ties between the text formats', async () => {
    const md = Buffer.from('# Title\n\nSome *text* with a [link](https://example.com).\n\n## Part\n\n- one\n- two\n');
    expect(await detectKind(md)).toBe('markdown');
    expect(await detectKind(md, { filename: 'README.md' })).toBe('markdown');
    expect(await detectKind(md, { filename: 'notes.txt' })).toBe('text');
    expect(
      await detectKind(Buffer.from('<div align="center"><img src="logo.png"></div>\n\n# Project\n\nText.'), {
        filename: 'README.md',
      }),
    ).toBe('markdown');
    const csv = Buffer.from('name,city,age\nAda,London,36\nLinus,Helsinki,28\n"Smith, J","New\nYork",50\n');
    expect(await detectKind(csv)).toBe('csv');
    expect(await detectKind(csv, { filename: 'people.txt' })).toBe('text');
    expect(await detectKind(Buffer.from('a;b\n1;2\n'), { contentType: 'text/csv; charset=utf-8' })).toBe('csv');
    expect(
      await detectKind(Buffer.from('Just a plain note.\nNothing tabular here at all.'), { filename: 'data.csv' }),
    ).toBe('text');
    expect(await detectKind(Buffer.from('Dear team,\n\nthe meeting moved to Friday.\n\nThanks'))).toBe('text');
  });

  it('reads UTF-16 and windows-1252 text as text', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Grüße aus Köln\n', 'utf16le')]);
    expect(await detectKind(utf16)).toBe('text');
    expect(await detectKind(Buffer.from('Caf\xe9 cr\xe8me br\xfbl\xe9e\n', 'latin1'))).toBe('text');
  });
});
