/**
 * The console's files (console/, built into dist/console): `/console` and every path under it
 * answer the one page (the console routes on the URL itself), `/console/assets/<hashed file>` its
 * scripts and styles, cached for a year, brotli/gzip copies sent when accepted.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, notFound } from '../../domain/errors.js';
import { PROJECT_ROOT } from '../../paths.js';
import { OPEN } from '../open.js';
import { sendBuilt } from './widget-scripts.js';

export const CONSOLE_DIST = join(PROJECT_ROOT, 'dist', 'console');
const ASSET = /^[A-Za-z0-9_-]{1,80}\.(js|css)$/;

/** Scripts and styles of our own origin only; frames of our own pages (the widget's preview). */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' https: data: blob:; frame-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export default async function consoleFiles(app: FastifyInstance) {
  const page = async (reply: FastifyReply) => {
    const html = await readFile(join(CONSOLE_DIST, 'index.html')).catch(() => null);
    if (!html)
      throw new AppError('NOT_FOUND', 'Console not built', { hint: 'Run `npm run build:widget` (npm start does it)' });
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('content-security-policy', CONSOLE_CSP)
      .send(html);
  };
  app.get('/console', OPEN, (_request, reply) => page(reply));
  app.get('/console/*', OPEN, (_request, reply) => page(reply));
  app.get<{ Params: { file: string } }>('/console/assets/:file', OPEN, (request, reply) => {
    const file = request.params.file;
    const sent = ASSET.test(file)
      ? sendBuilt(request, reply, join(CONSOLE_DIST, 'assets', file), 'public, max-age=31536000, immutable')
      : null;
    if (!sent) throw notFound('Console file');
    return sent;
  });
}
