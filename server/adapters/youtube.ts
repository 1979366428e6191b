/**
 * YouTube transcripts: the caption track from the watch page's ytInitialPlayerResponse, the
 * timedtext payload (XML or json3) as timed cues, and a document of ~60-90 s sections each
 * carrying its start time (so a chunk cites `&t=` seconds); and the ingest item that fetches
 * them through the job's Fetcher (the guarded client). Which URLs name a video is the domain's
 * rule (domain/knowledge/video-id.ts).
 */
import type { ExtractedDocument, Section } from '../domain/knowledge/documents.js';
import { describeFetchError } from '../domain/knowledge/crawl/fetcher.js';
import type { ItemHandler } from '../domain/knowledge/ingest-runner.js';
import { failure, indexOutcome } from '../domain/knowledge/items/web.js';
import { parseVideoId } from '../domain/knowledge/video-id.js';

/** The JSON value (object or array) starting at `start`, found by matching brackets outside strings. */
function balancedJson(text: string, start: number): string | null {
  const open = text[start];
  if (open !== '{' && open !== '[') return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  return null;
}

function jsonAfter(text: string, marker: RegExp): unknown {
  const re = new RegExp(marker.source, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const json = balancedJson(text, m.index + m[0].length);
    if (!json) continue;
    try {
      return JSON.parse(json);
    } catch {
      // Not this occurrence; try the next one.
    }
  }
  return undefined;
}

interface CaptionTrack {
  baseUrl?: string;
  languageCode?: string;
  kind?: string;
  name?: { simpleText?: string; runs?: { text?: string }[] };
}

function pageTitle(html: string): string {
  const meta = /<meta\s+(?:name|property)=["'](?:og:)?title["']\s+content=["']([^"']*)["']/i.exec(html)?.[1];
  const title = meta ?? /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.replace(/\s+-\s+YouTube\s*$/, '');
  return decodeEntities(title ?? '').trim();
}

/**
 * The caption track to fetch from a watch page: the preferred language (exact, then same
 * primary subtag), written captions before automatic ones; without a preference the first
 * written track, else the first automatic one. `url` is the timedtext URL (XML; add
 * `&fmt=json3` for json3). Null when the video has no captions.
 */
export function captionTrackUrl(
  watchPageHtml: string,
  preferredLang?: string,
): { url: string; lang: string; title: string } | null {
  const player = jsonAfter(watchPageHtml, /ytInitialPlayerResponse\s*=\s*/) as
    | {
        captions?: { playerCaptionsTracklistRenderer?: { captionTracks?: CaptionTrack[] } };
        videoDetails?: { title?: string };
      }
    | undefined;
  let tracks = player?.captions?.playerCaptionsTracklistRenderer?.captionTracks;
  if (!Array.isArray(tracks)) tracks = jsonAfter(watchPageHtml, /"captionTracks"\s*:\s*/) as CaptionTrack[] | undefined;
  if (!Array.isArray(tracks)) return null;
  const usable = tracks.filter((t) => typeof t?.baseUrl === 'string' && t.baseUrl);
  if (usable.length === 0) return null;
  const want = preferredLang?.toLowerCase();
  const primary = want?.split(/[-_]/)[0];
  const score = (t: CaptionTrack, index: number) => {
    const lang = (t.languageCode ?? '').toLowerCase();
    let s = 0;
    if (want && lang === want) s += 40;
    else if (primary && lang.split(/[-_]/)[0] === primary) s += 30;
    if (t.kind !== 'asr') s += 15; // written captions beat automatic ones, even in a sibling dialect
    return s - index / 1000; // the page's order breaks ties
  };
  const best = usable.map((t, i) => ({ t, s: score(t, i) })).sort((a, b) => b.s - a.s)[0].t;
  const url = new URL(best.baseUrl!, 'https://www.youtube.com').href;
  const title = (player?.videoDetails?.title ?? '').trim() || pageTitle(watchPageHtml) || 'YouTube video';
  return { url, lang: best.languageCode ?? '', title };
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  copy: '©',
  reg: '®',
  trade: '™',
};

function decodeOnce(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const cp = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : whole;
    }
    return NAMED[body.toLowerCase()] ?? whole;
  });
}

/** XML entities, then the HTML entities YouTube leaves inside them (`&amp;#39;` means an apostrophe). */
export function decodeEntities(s: string): string {
  const once = decodeOnce(s);
  return /&(#x?[0-9a-f]+|[a-z]{2,8});/i.test(once) ? decodeOnce(once) : once;
}

const attr = (attrs: string, name: string): string | undefined =>
  new RegExp(`\\b${name}\\s*=\\s*["']([^"']*)["']`).exec(attrs)?.[1];

// Markup in cues (<font>, <b>, srv3 <s>), also when it arrives entity-encoded; a lone "<" in text stays.
const TAG = /<\/?[a-z][a-z0-9]*(?:\s[^<>]*)?\/?>/gi;
const cueText = (raw: string) => decodeEntities(raw.replace(TAG, '')).replace(TAG, '').replace(/\s+/g, ' ').trim();

export interface Cue {
  startSeconds: number;
  durationSeconds: number;
  text: string;
}

/**
 * Timed cues from a timedtext payload: the classic XML (`<transcript><text start dur>`), the
 * srv3 XML (`<timedtext><body><p t d>` in milliseconds) and json3 (`events[].tStartMs/dDurationMs/segs[].utf8`).
 * Entities decoded, markup and empty cues dropped, sorted by start.
 */
export function parseTimedText(xmlOrJson3: string): Cue[] {
  const source = xmlOrJson3.replace(/^\uFEFF/, '').trim();
  const cues: Cue[] = [];
  if (source.startsWith('{')) {
    let data: { events?: { tStartMs?: number; dDurationMs?: number; segs?: { utf8?: string }[] }[] };
    try {
      data = JSON.parse(source);
    } catch {
      return [];
    }
    for (const e of data.events ?? []) {
      if (!Array.isArray(e?.segs)) continue;
      // json3 carries no markup: a "<div>" in a coding talk is text.
      const joined = e.segs.map((s) => (typeof s?.utf8 === 'string' ? s.utf8 : '')).join('');
      const text = decodeEntities(joined).replace(/\s+/g, ' ').trim();
      if (!text) continue;
      cues.push({
        startSeconds: (Number(e.tStartMs) || 0) / 1000,
        durationSeconds: (Number(e.dDurationMs) || 0) / 1000,
        text,
      });
    }
  } else {
    const classic = /<text\b([^>]*)>([\s\S]*?)<\/text>/g;
    for (let m = classic.exec(source); m; m = classic.exec(source)) {
      const text = cueText(m[2]);
      if (text)
        cues.push({
          startSeconds: Number(attr(m[1], 'start')) || 0,
          durationSeconds: Number(attr(m[1], 'dur')) || 0,
          text,
        });
    }
    if (cues.length === 0) {
      const srv3 = /<p\b([^>]*)>([\s\S]*?)<\/p>/g;
      for (let m = srv3.exec(source); m; m = srv3.exec(source)) {
        const text = cueText(m[2]);
        if (text)
          cues.push({
            startSeconds: (Number(attr(m[1], 't')) || 0) / 1000,
            durationSeconds: (Number(attr(m[1], 'd')) || 0) / 1000,
            text,
          });
      }
    }
  }
  return cues.sort((a, b) => a.startSeconds - b.startSeconds);
}

const SECTION_MIN_SECONDS = 60;
const SECTION_MAX_SECONDS = 90;
const SENTENCE_END = /[.!?…。！？]["'”’)\]]*$/;

/**
 * Cues -> sections of about 60-90 s: a section closes at the first sentence end after 60 s
 * (or at 60 s when the captions have no punctuation, as automatic ones do) and always before
 * it would pass 90 s. Each section starts at its first cue's time.
 */
export function transcriptDocument(title: string, cues: Cue[], options: { language?: string } = {}): ExtractedDocument {
  const punctuated = cues.some((c) => SENTENCE_END.test(c.text));
  const sections: Section[] = [];
  let texts: string[] = [];
  let start = 0;
  const close = () => {
    if (texts.length) sections.push({ headingPath: [], text: texts.join(' '), startSeconds: start });
    texts = [];
  };
  for (const cue of cues) {
    const text = cue.text.replace(/\s+/g, ' ').trim();
    if (!text) continue;
    if (texts.length && cue.startSeconds - start >= SECTION_MAX_SECONDS) close();
    if (!texts.length) start = cue.startSeconds;
    texts.push(text);
    const elapsed = cue.startSeconds + cue.durationSeconds - start;
    if (elapsed >= SECTION_MIN_SECONDS && (!punctuated || SENTENCE_END.test(text))) close();
  }
  close();
  return {
    kind: 'youtube',
    title: title.trim() || 'YouTube video',
    ...(options.language ? { language: options.language } : {}),
    sections,
  };
}

/** A YouTube video: title and captions from the watch page's caption track, timestamps kept. */
export function youtubeItem(baseUrl: string): ItemHandler {
  return async (ctx, item) => {
    const id = parseVideoId(String(item.payload?.url ?? ''));
    if (!id) return { status: 'failed', error: 'not a YouTube video URL' };
    const watchUrl = `https://www.youtube.com/watch?v=${id}`;
    try {
      const page = await ctx.fetcher.get(`${baseUrl}/watch?v=${encodeURIComponent(id)}&hl=en`, { accept: 'text/html' });
      if (page.status !== 200) return { status: 'failed', error: `HTTP ${page.status} for the video page` };
      const track = captionTrackUrl(page.body.toString('utf8'));
      if (!track) return { status: 'failed', error: 'The video has no captions to read' };
      const trackUrl = new URL(track.url, baseUrl).href;
      const captions = await ctx.fetcher.get(trackUrl, { accept: '*/*' });
      if (captions.status !== 200) return { status: 'failed', error: `HTTP ${captions.status} for the captions` };
      const cues = parseTimedText(captions.body.toString('utf8'));
      if (!cues.length) return { status: 'failed', error: 'The captions track is empty' };
      const doc = transcriptDocument(track.title || `YouTube video ${id}`, cues, { language: track.lang });
      return await indexOutcome(ctx, `youtube:${id}`, watchUrl, doc);
    } catch (err) {
      if ((err as { code?: string }).code)
        return { status: 'failed', error: Object.values(describeFetchError(err)).join(': ') };
      return failure(err);
    }
  };
}
