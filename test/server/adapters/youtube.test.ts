import { describe, expect, it } from 'vitest';
import { chunkDocument, citationUrl } from '../../../server/domain/knowledge/chunk.js';
import { extract } from '../../../server/adapters/extraction/index.js';
import { captionTrackUrl, parseTimedText, transcriptDocument } from '../../../server/adapters/youtube.js';
import { parseVideoId } from '../../../server/domain/knowledge/video-id.js';

describe('parseVideoId', () => {
  it.each([
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://youtube.com/watch?feature=share&v=dQw4w9WgXcQ&t=42s', 'dQw4w9WgXcQ'],
    ['https://m.youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://music.youtube.com/watch?v=dQw4w9WgXcQ&list=x', 'dQw4w9WgXcQ'],
    ['https://youtu.be/dQw4w9WgXcQ?si=abc', 'dQw4w9WgXcQ'],
    ['youtu.be/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://www.youtube.com/shorts/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://www.youtube.com/embed/dQw4w9WgXcQ?start=10', 'dQw4w9WgXcQ'],
    ['https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://www.youtube.com/live/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
  ])('%s', (url, id) => expect(parseVideoId(url)).toBe(id));

  it.each([
    'https://example.com/watch?v=dQw4w9WgXcQ',
    'https://www.youtube.com/watch?v=short',
    'https://www.youtube.com/channel/UC123',
    'javascript:alert(1)',
    'not a url',
    'https://youtu.be/',
  ])('refuses %s', (url) => expect(parseVideoId(url)).toBeNull());
});

const playerResponse = {
  videoDetails: { videoId: 'dQw4w9WgXcQ', title: 'How "Parley" works {in 5 minutes}' },
  captions: {
    playerCaptionsTracklistRenderer: {
      captionTracks: [
        {
          baseUrl: 'https://www.youtube.com/api/timedtext?v=dQw4w9WgXcQ&lang=en&kind=asr',
          name: { simpleText: 'English (auto-generated)' },
          languageCode: 'en',
          kind: 'asr',
        },
        {
          baseUrl: 'https://www.youtube.com/api/timedtext?v=dQw4w9WgXcQ&lang=de',
          name: { simpleText: 'German' },
          languageCode: 'de',
        },
        {
          baseUrl: 'https://www.youtube.com/api/timedtext?v=dQw4w9WgXcQ&lang=en-GB',
          name: { simpleText: 'English (UK)' },
          languageCode: 'en-GB',
        },
      ],
    },
  },
};
// The shape of a real watch page: the JSON inline in a script, "}" and ";" inside strings included.
const watchPage = `<!DOCTYPE html><html><head><title>How Parley works - YouTube</title></head><body>
<script nonce="x">var ytcfg = {"a": "b"};</script>
<script nonce="x">var ytInitialPlayerResponse = ${JSON.stringify(playerResponse).replace(/&/g, '\\u0026')};var meta = document.createElement('meta');</script>
</body></html>`;

describe('captionTrackUrl', () => {
  it('prefers written captions in the wanted language, then its primary subtag', () => {
    expect(captionTrackUrl(watchPage, 'de')).toEqual({
      url: 'https://www.youtube.com/api/timedtext?v=dQw4w9WgXcQ&lang=de',
      lang: 'de',
      title: 'How "Parley" works {in 5 minutes}',
    });
    // "en" matches en-GB (written) before the automatic "en" track.
    expect(captionTrackUrl(watchPage, 'en')?.lang).toBe('en-GB');
    expect(captionTrackUrl(watchPage, 'en-GB')?.lang).toBe('en-GB');
    // Without a preference: the first written track.
    expect(captionTrackUrl(watchPage)?.lang).toBe('de');
    expect(captionTrackUrl(watchPage, 'fr')?.lang).toBe('de');
  });

  it('returns null for a video without captions or a page without a player response', () => {
    const none = `<script>var ytInitialPlayerResponse = {"videoDetails":{"title":"Silent"}};</script>`;
    expect(captionTrackUrl(none)).toBeNull();
    expect(captionTrackUrl('<html><body>nothing</body></html>')).toBeNull();
  });
});

const timedTextXml = `<?xml version="1.0" encoding="utf-8" ?><transcript>
<text start="0.5" dur="2.1">Welcome to Parley &amp;amp; friends.</text>
<text start="2.6" dur="3">It&amp;#39;s &lt;b&gt;simple&lt;/b&gt;.</text>
<text start="5.6" dur="1.4"></text>
<text start="7" dur="2">Let&#39;s go!</text>
</transcript>`;

const json3 = JSON.stringify({
  wireMagic: 'pb3',
  events: [
    { tStartMs: 0, dDurationMs: 61000, id: 1, wpWinPosId: 1, wsWinStyleId: 1 },
    { tStartMs: 1200, dDurationMs: 2500, wWinId: 1, segs: [{ utf8: 'hello' }, { utf8: ' world', tOffsetMs: 400 }] },
    { tStartMs: 3700, dDurationMs: 1000, wWinId: 1, aAppend: 1, segs: [{ utf8: '\n' }] },
    { tStartMs: 4000, dDurationMs: 2000, wWinId: 1, segs: [{ utf8: 'rock &amp; roll' }] },
  ],
});

describe('parseTimedText', () => {
  it('reads the timedtext XML with entities decoded (double-encoded ones too) and empty cues dropped', () => {
    expect(parseTimedText(timedTextXml)).toEqual([
      { startSeconds: 0.5, durationSeconds: 2.1, text: 'Welcome to Parley & friends.' },
      { startSeconds: 2.6, durationSeconds: 3, text: "It's simple." },
      { startSeconds: 7, durationSeconds: 2, text: "Let's go!" },
    ]);
  });

  it('reads json3 events, joining segments and skipping line-break events', () => {
    expect(parseTimedText(json3)).toEqual([
      { startSeconds: 1.2, durationSeconds: 2.5, text: 'hello world' },
      { startSeconds: 4, durationSeconds: 2, text: 'rock & roll' },
    ]);
  });

  it('reads the srv3 format (milliseconds) and survives junk', () => {
    const srv3 =
      '<timedtext format="3"><body><p t="1500" d="2000">first <s>line</s></p><p t="4000" d="1000">second</p></body></timedtext>';
    expect(parseTimedText(srv3)).toEqual([
      { startSeconds: 1.5, durationSeconds: 2, text: 'first line' },
      { startSeconds: 4, durationSeconds: 1, text: 'second' },
    ]);
    expect(parseTimedText('{not json')).toEqual([]);
    expect(parseTimedText('')).toEqual([]);
  });
});

describe('transcriptDocument', () => {
  const cues = Array.from({ length: 60 }, (_, i) => ({
    startSeconds: i * 5,
    durationSeconds: 5,
    text: i % 3 === 2 ? `Point number ${i} is made here.` : `and this is part ${i} of the talk`,
  }));

  it('cuts the transcript into ~60-90 s sections that start at their first cue', () => {
    const doc = transcriptDocument('Talk', cues, { language: 'en' });
    expect(doc).toMatchObject({ kind: 'youtube', title: 'Talk', language: 'en' });
    expect(doc.sections.length).toBeGreaterThanOrEqual(3);
    for (const [i, s] of doc.sections.entries()) {
      expect(s.startSeconds).toBe(cues.find((c) => s.text.startsWith(c.text))!.startSeconds);
      const next = doc.sections[i + 1]?.startSeconds ?? 300;
      if (i < doc.sections.length - 1) {
        expect(next - s.startSeconds!).toBeGreaterThanOrEqual(60);
        expect(next - s.startSeconds!).toBeLessThanOrEqual(90);
        expect(s.text).toMatch(/\.$/); // punctuated captions end at a sentence
      }
    }
    expect(doc.sections.map((s) => s.text).join(' ')).toBe(cues.map((c) => c.text).join(' '));
  });

  it('cuts unpunctuated (automatic) captions at 60 s', () => {
    const auto = cues.map((c) => ({ ...c, text: c.text.replace('.', '') }));
    const starts = transcriptDocument('Talk', auto).sections.map((s) => s.startSeconds);
    expect(starts).toEqual([0, 60, 120, 180, 240]);
  });

  it('carries the start time to chunks and to the citation link', async () => {
    const doc = await extract({ bytes: Buffer.from(timedTextXml), kind: 'youtube', title: 'Intro' });
    expect(doc.title).toBe('Intro');
    const chunks = chunkDocument(transcriptDocument('Talk', cues));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[0].location.startSeconds).toBe(0);
    const later = chunks.find((c) => (c.location.startSeconds ?? 0) > 0)!;
    expect(citationUrl('https://www.youtube.com/watch?v=dQw4w9WgXcQ', later)).toBe(
      `https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=${Math.floor(later.location.startSeconds!)}s`,
    );
  });
});
