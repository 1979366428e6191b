/**
 * Confluence storage format -> plain HTML the extractor reads. Storage format is XHTML with
 * `ac:`/`ri:` elements for macros, links and images, and CDATA for code; an HTML parser drops
 * CDATA as a comment and reads macro parameters as text. So, in one linear pass: CDATA becomes
 * escaped text, code bodies become <pre>, rich macro bodies and layouts become <div>, and the
 * parts that are settings rather than content (parameters, placeholders, task ids) are left out.
 */

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Elements whose whole content is configuration, not reader text. */
const DROP_CONTENT = new Set([
  'ac:parameter',
  'ac:placeholder',
  'ac:task-id',
  'ac:task-uuid',
  'ac:task-status',
  'ac:emoticon',
  'ac:inline-comment-marker-ref',
]);
/** Element -> the HTML element that stands for it; an empty string drops the tag but keeps its content. */
const RENAME: Record<string, string> = {
  'ac:plain-text-body': 'pre',
  'ac:rich-text-body': 'div',
  'ac:structured-macro': 'div',
  'ac:macro': 'div',
  'ac:layout': 'div',
  'ac:layout-section': 'div',
  'ac:layout-cell': 'div',
  'ac:task-list': 'ul',
  'ac:task': 'li',
  'ac:task-body': 'span',
  'ac:link': 'span',
  'ac:link-body': 'span',
  'ac:plain-text-link-body': 'span',
  'ac:image': '',
  'ac:inline-comment-marker': '',
};

const TOKEN = /<!\[CDATA\[|<(\/?)((?:ac|ri):[A-Za-z-]+)\b[^>]*?(\/?)>/g;

export function storageToHtml(storage: string, title: string, lang?: string): string {
  const out: string[] = [];
  let dropping = 0;
  let last = 0;
  const emit = (s: string) => {
    if (dropping === 0) out.push(s);
  };
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(storage); m; m = TOKEN.exec(storage)) {
    emit(storage.slice(last, m.index));
    if (m[0] === '<![CDATA[') {
      const end = storage.indexOf(']]>', TOKEN.lastIndex);
      const stop = end === -1 ? storage.length : end;
      emit(escapeHtml(storage.slice(TOKEN.lastIndex, stop)));
      last = TOKEN.lastIndex = end === -1 ? storage.length : end + 3;
      continue;
    }
    last = TOKEN.lastIndex;
    const [, closing, rawName, selfClosing] = m;
    const name = rawName.toLowerCase();
    if (DROP_CONTENT.has(name)) {
      if (selfClosing) continue;
      dropping = Math.max(0, dropping + (closing ? -1 : 1));
      continue;
    }
    // ri: elements are references (page, attachment, user); their targets are not page text.
    if (name.startsWith('ri:')) continue;
    const tag = name in RENAME ? RENAME[name] : 'div';
    if (!tag || selfClosing) continue;
    emit(closing ? `</${tag}>` : `<${tag}>`);
  }
  emit(storage.slice(last));
  const langAttr = lang ? ` lang="${escapeHtml(lang).replace(/"/g, '&quot;')}"` : '';
  return `<!doctype html><html${langAttr}><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><article>${out.join('')}</article></body></html>`;
}
