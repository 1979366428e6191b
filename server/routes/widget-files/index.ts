/**
 * The widget's files and pages: `/widget.js` (short cache: it names the current chunks),
 * `/widget/<hashed chunk>.js` (cached for a year), `GET /chat/{chatbotId}` (the hosted
 * full-screen chat for mobile webviews) and `/demo` (the theming playground and agent console).
 * Files come from dist/ (npm run build:widget); brotli/gzip copies are sent when accepted.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, notFound } from '../../domain/errors.js';
import { PROJECT_ROOT } from '../../paths.js';
import { pickLanguage, RTL_LANGUAGES } from '../../http/languages.js';
import { chatNotFoundPage, hostedChatPage, NOT_FOUND_LANGUAGES } from './pages.js';

export const WIDGET_DIST = join(PROJECT_ROOT, 'dist', 'widget');
const DEMO_DIST = join(PROJECT_ROOT, 'dist', 'demo');
const DEMO_ASSET = /^[A-Za-z0-9_-]{1,80}\.(js|css)$/;
const CHUNK = /^[A-Za-z0-9_-]{1,80}\.js$/;
const CHATBOT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const open = { schema: { hide: true }, config: { access: { public: true as const }, raw: true } };

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

async function widgetFiles(app: FastifyInstance) {
  app.get('/widget.js', open, (request, reply) =>
    sendScript(request, reply, join(WIDGET_DIST, 'widget.js'), 'public, max-age=300'),
  );
  app.get<{ Params: { file: string } }>('/widget/:file', open, (request, reply) => {
    if (!CHUNK.test(request.params.file)) throw notFound('Widget file');
    return sendScript(
      request,
      reply,
      join(WIDGET_DIST, 'chunks', request.params.file),
      'public, max-age=31536000, immutable',
    );
  });
  // The playground: the page calls the v2 API with a token the operator pastes.
  app.get('/demo', open, async (_request, reply) => {
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
  app.get<{ Params: { file: string } }>('/demo/assets/:file', open, async (request, reply) => {
    const file = request.params.file;
    const bytes = DEMO_ASSET.test(file) ? await readFile(join(DEMO_DIST, 'assets', file)).catch(() => null) : null;
    if (!bytes) throw notFound('Demo file');
    return reply
      .type(file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(bytes);
  });
  app.get<{ Params: { chatbotId: string }; Querystring: Record<string, string | undefined> }>(
    '/chat/:chatbotId',
    open,
    async (request, reply) => {
      const nonce = randomBytes(16).toString('base64');
      const q = request.query;
      const locale = q.locale && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(q.locale) ? q.locale : null;
      reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .header(
          'content-security-policy',
          `default-src 'none'; script-src 'self'; style-src 'self' 'nonce-${nonce}'; connect-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'`,
        );
      const id = request.params.chatbotId;
      const exists =
        CHATBOT_ID.test(id) &&
        (await app.services.widget.chatbot(id).then(
          () => true,
          () => false,
        ));
      if (!exists) {
        // A page, not the API's JSON: a visitor (or an app's webview) reads it. ?locale= first, then the browser's languages.
        const language = pickLanguage(locale ?? request.headers['accept-language'], NOT_FOUND_LANGUAGES);
        return reply
          .code(404)
          .send(chatNotFoundPage({ language, nonce, dir: RTL_LANGUAGES.includes(language) ? 'rtl' : 'ltr' }));
      }
      return reply.send(
        hostedChatPage({
          chatbotId: id,
          nonce,
          theme: q.theme === 'dark' || q.theme === 'light' ? q.theme : 'auto',
          locale,
        }),
      );
    },
  );
}

export default fp(widgetFiles, { name: 'widget-files' });
