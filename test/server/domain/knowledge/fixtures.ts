/** Documents built on the fly for the knowledge tests (nothing binary is checked in). */
import JSZip from 'jszip';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';

const WORDS =
  'the service keeps every answer grounded in the owner content and cites the page it came from so visitors can check it themselves while the team watches conversations live'.split(
    ' ',
  );

/** `n` words of plain prose with a sentence end every 12 words. */
export function prose(n: number, seed = 0): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let w = WORDS[(i * 7 + seed) % WORDS.length];
    if (i % 12 === 0) w = w[0].toUpperCase() + w.slice(1);
    out.push(i % 12 === 11 || i === n - 1 ? `${w}.` : w);
  }
  return out.join(' ');
}

/** Breaks text into lines of at most `width` characters (pdf-lib draws no wrapping). */
function wrap(text: string, width = 90): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

export interface PdfPage {
  heading?: string;
  paragraphs: string[];
}

/** A PDF with a large heading and 12-pt paragraphs per page, plus a page number in the footer. */
export async function buildPdf(pages: PdfPage[], title?: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  pages.forEach((p, i) => {
    const page = doc.addPage([612, 792]);
    let y = 700;
    if (p.heading) {
      page.drawText(p.heading, { x: 50, y, size: 20, font: bold });
      y -= 36;
    }
    for (const para of p.paragraphs) {
      for (const line of wrap(para)) {
        page.drawText(line, { x: 50, y, size: 11, font });
        y -= 14;
      }
      y -= 12;
    }
    page.drawText(String(i + 1), { x: 300, y: 30, size: 9, font });
  });
  if (title) doc.setTitle(title);
  return Buffer.from(await doc.save());
}

/**
 * A small valid PDF whose one page has `operators` text-showing operators in one compressed
 * content stream: about 1 MB for 200k operators, and seconds of pdf.js work.
 */
export async function heavyPdf(operators: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage();
  const parts: string[] = [];
  for (let i = 0; i < operators; i++) parts.push(`BT /F1 12 Tf ${i % 500} ${i % 700} Td (w${i}) Tj ET`);
  const stream = doc.context.flateStream(Buffer.from(parts.join('\n')));
  page.node.set(PDFName.of('Contents'), doc.context.register(stream));
  return Buffer.from(await doc.save());
}

export interface DocxParagraph {
  style?: string;
  text: string;
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The smallest DOCX Word and mammoth accept: content types, package relationships, the document part. */
export async function buildDocx(paragraphs: DocxParagraph[]): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
      '</Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
      '</Relationships>',
  );
  const body = paragraphs
    .map(
      (p) =>
        `<w:p>${p.style ? `<w:pPr><w:pStyle w:val="${p.style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${esc(p.text)}</w:t></w:r></w:p>`,
    )
    .join('');
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** A ZIP that is not a DOCX. */
export async function buildZip(): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('readme.txt', 'just a text file in an archive');
  zip.file('data/numbers.csv', 'a,b\n1,2\n');
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** The first bytes of a PNG (signature, IHDR) and some pixels. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a5e30000000049454e44ae426082',
  'hex',
);
