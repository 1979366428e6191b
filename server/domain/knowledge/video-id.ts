/** Which addresses name a YouTube video: the rule a knowledge request is validated by. */

const ID = /^[A-Za-z0-9_-]{11}$/;
const HOSTS = new Set(['youtube.com', 'youtube-nocookie.com', 'youtu.be']);

/** The 11-character video id of youtube.com/watch?v=, youtu.be/, /shorts/, /embed/, /live/, /v/ and m./music. hosts; or null. */
export function parseVideoId(url: string): string | null {
  const raw = url.trim();
  if (ID.test(raw)) return raw;
  let u: URL;
  try {
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  const host = u.hostname.toLowerCase().replace(/^(www|m|music)\./, '');
  if (!HOSTS.has(host)) return null;
  const parts = u.pathname.split('/').filter(Boolean);
  let id: string | null | undefined;
  if (host === 'youtu.be') id = parts[0];
  else if (parts[0] === 'watch') id = u.searchParams.get('v');
  else if (['shorts', 'embed', 'live', 'v', 'e'].includes(parts[0])) id = parts[1];
  else if (u.searchParams.has('v')) id = u.searchParams.get('v');
  return id && ID.test(id) ? id : null;
}
