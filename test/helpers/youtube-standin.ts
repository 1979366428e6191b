/**
 * A local stand-in for what Parley reads of YouTube (server/adapters/youtube.ts, pointed here with
 * YOUTUBE_BASE_URL): the watch page (`/watch?v=ID&hl=en`) with its inline
 * `ytInitialPlayerResponse` listing the caption tracks, and each track's timedtext XML
 * (`/api/timedtext?v=ID&lang=xx`, entities encoded twice as YouTube does). A video without
 * captions has a watch page with no track; an unknown id answers as YouTube does, 200 with a
 * player response saying the video is unavailable.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandinCue {
  start: number;
  dur: number;
  text: string;
}

export interface StandinVideo {
  title: string;
  /** The caption track's language and cues; null: the video has no captions. */
  captions: { lang: string; cues: StandinCue[] } | null;
}

export interface YouTubeStandin {
  url: string;
  /** Requests by path and query, in order. */
  requests: string[];
  close(): Promise<void>;
}

const xmlText = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&amp;#39;');

export async function serveYouTube(videos: Record<string, StandinVideo>): Promise<YouTubeStandin> {
  const requests: string[] = [];
  let origin = '';
  const server = createServer((req, res) => {
    requests.push(req.url ?? '/');
    const url = new URL(req.url ?? '/', origin);
    const id = url.searchParams.get('v') ?? '';
    const video = videos[id];
    if (url.pathname === '/watch') {
      const player = video
        ? {
            playabilityStatus: { status: 'OK' },
            videoDetails: { videoId: id, title: video.title },
            ...(video.captions && {
              captions: {
                playerCaptionsTracklistRenderer: {
                  captionTracks: [
                    {
                      baseUrl: `${origin}/api/timedtext?v=${id}&lang=${video.captions.lang}`,
                      name: { simpleText: video.captions.lang },
                      languageCode: video.captions.lang,
                    },
                  ],
                },
              },
            }),
          }
        : { playabilityStatus: { status: 'ERROR', reason: 'Video unavailable' } };
      const title = video ? `${video.title} - YouTube` : 'YouTube';
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!DOCTYPE html><html><head><title>${title}</title></head><body>` +
            `<script nonce="n">var ytcfg = {"d": "x;y"};</script>` +
            `<script nonce="n">var ytInitialPlayerResponse = ${JSON.stringify(player).replace(/&/g, '\\u0026')};` +
            `var meta = document.createElement('meta');</script></body></html>`,
        );
      return;
    }
    if (url.pathname === '/api/timedtext' && video?.captions) {
      const cues = video.captions.cues
        .map((c) => `<text start="${c.start}" dur="${c.dur}">${xmlText(c.text)}</text>`)
        .join('');
      res
        .writeHead(200, { 'content-type': 'text/xml; charset=UTF-8' })
        .end(`<?xml version="1.0" encoding="utf-8" ?><transcript>${cues}</transcript>`);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
