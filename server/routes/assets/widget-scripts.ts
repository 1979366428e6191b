/**
 * The widget's files: `/widget.js` (short cache: it names the current chunks) and
 * `/widget/<hashed chunk>.js` (cached for a year), from dist/widget (npm run build:widget);
 * brotli/gzip copies are sent when accepted (`sendBuilt`, the console's files too).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, notFound } from '../../domain/errors.js';
import { PROJECT_ROOT } from '../../paths.js';
import { OPEN } from '../open.js';

export const WIDGET_DIST = join(PROJECT_ROOT, 'dist', 'widget');
const CHUNK = /^[A-Za-z0-9_-]{1,80}\.js$/;

interface Script {
  mtimeMs: number;
  etag: string;
  /** The plain bytes and the build's brotli/gzip copies (when present). */
  bodies: { '': Buffer; br?: Buffer; gzip?: Buffer };
}
const scripts = new Map<string, Script>();

/**
 * The widget's files, held in memory: widget.js starts every visitor's chain (widget.js, then
 * the settings, then the bubble), so it is answered without a disk read. A sync stat per request
 * (microseconds, no thread-pool hop) notices a rebuild (`npm run dev:widget`).
 */
function script(path: string): Script | null {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return null;
  const known = scripts.get(path);
  if (known && known.mtimeMs === stat.mtimeMs) return known;
  const raw = readFileSync(path);
  const read = (suffix: string) => {
    try {
      return readFileSync(path + suffix);
    } catch {
      return undefined;
    }
  };
  const fresh: Script = {
    mtimeMs: stat.mtimeMs,
    etag: `"${createHash('sha256').update(raw).digest('base64url').slice(0, 22)}"`,
    bodies: { '': raw, br: read('.br'), gzip: read('.gz') },
  };
  scripts.set(path, fresh);
  return fresh;
}

/** A built file, brotli or gzip when accepted, with an etag; null when it is not there. */
export function sendBuilt(request: FastifyRequest, reply: FastifyReply, path: string, cache: string) {
  const file = script(path);
  if (!file) return null;
  reply
    .type(path.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8')
    .header('vary', 'accept-encoding')
    .header('cache-control', cache)
    .header('etag', file.etag)
    .header('x-content-type-options', 'nosniff');
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  const accepts = String(request.headers['accept-encoding'] ?? '');
  const encoding =
    file.bodies.br && /\bbr\b/.test(accepts) ? 'br' : file.bodies.gzip && /\bgzip\b/.test(accepts) ? 'gzip' : '';
  if (encoding) reply.header('content-encoding', encoding);
  return reply.send(file.bodies[encoding]);
}

function sendScript(request: FastifyRequest, reply: FastifyReply, path: string, cache: string) {
  reply
    // Chunks are ES modules fetched in CORS mode from the customer's page.
    .header('access-control-allow-origin', '*')
    .header('cross-origin-resource-policy', 'cross-origin')
    // The customer's page may see where the widget's time goes (resource timing).
    .header('timing-allow-origin', '*');
  const sent = sendBuilt(request, reply, path, cache);
  if (!sent)
    throw new AppError('NOT_FOUND', 'Widget file not found', {
      hint: 'Build the widget with `npm run build:widget` (npm start does it)',
    });
  return sent;
}

export default async function widgetScripts(app: FastifyInstance) {
  app.get('/widget.js', OPEN, (request, reply) =>
    sendScript(request, reply, join(WIDGET_DIST, 'widget.js'), 'public, max-age=300'),
  );
  app.get<{ Params: { file: string } }>('/widget/:file', OPEN, (request, reply) => {
    if (!CHUNK.test(request.params.file)) throw notFound('Widget file');
    return sendScript(
      request,
      reply,
      join(WIDGET_DIST, 'chunks', request.params.file),
      'public, max-age=31536000, immutable',
    );
  });
}
