/** `/demo`: the theming playground and agent console, from dist/demo (npm run build:widget). */
import type { FastifyInstance } from 'fastify';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, notFound } from '../../domain/errors.js';
import { PROJECT_ROOT } from '../../paths.js';
import { OPEN } from '../open.js';

const DEMO_DIST = join(PROJECT_ROOT, 'dist', 'demo');
const DEMO_ASSET = /^[A-Za-z0-9_-]{1,80}\.(js|css)$/;

export default async function demo(app: FastifyInstance) {
  // The playground: the page calls the v2 API with a token the operator pastes.
  app.get('/demo', OPEN, async (_request, reply) => {
    const html = await readFile(join(DEMO_DIST, 'index.html')).catch(() => null);
    if (!html)
      throw new AppError('NOT_FOUND', 'Demo not built', { hint: 'Run `npm run build:widget` (npm start does it)' });
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header(
        'content-security-policy',
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      )
      .send(html);
  });
  app.get<{ Params: { file: string } }>('/demo/assets/:file', OPEN, async (request, reply) => {
    const file = request.params.file;
    const bytes = DEMO_ASSET.test(file) ? await readFile(join(DEMO_DIST, 'assets', file)).catch(() => null) : null;
    if (!bytes) throw notFound('Demo file');
    return reply
      .type(file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(bytes);
  });
}
