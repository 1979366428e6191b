/**
 * The team's signed-in session in the browser (the console, the device page): the session
 * cookie and the CSRF secret cookie, parsed on every request. A request authenticated by the
 * session cookie (access.ts) must send the session's CSRF token with every change: the
 * X-CSRF-Token header (a form field `_csrf` on the device page's forms).
 */
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

export const SESSION_COOKIE = 'parley_session';
const CSRF_COOKIE = 'parley_csrf';
/** Methods that change nothing: no CSRF token needed. */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

const csrfToken = (request: FastifyRequest): string | undefined => {
  const header = request.headers['x-csrf-token'];
  if (typeof header === 'string') return header;
  const field = (request.body as Record<string, unknown> | undefined)?._csrf;
  return typeof field === 'string' ? field : undefined;
};

/** The cookies' attributes: HttpOnly, SameSite=Lax, site-wide, Secure when the site is https. */
export function sessionCookieOptions(app: FastifyInstance, request: FastifyRequest) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: app.config.siteUrl.startsWith('https:') || request.protocol === 'https',
  };
}

async function sessionCookies(app: FastifyInstance) {
  await app.register(cookie);
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: CSRF_COOKIE,
    cookieOpts: { path: '/', httpOnly: true, sameSite: 'lax' },
    getToken: csrfToken,
  });
}

/** After the access hook: a change made with the session cookie needs the CSRF token. */
export function installSessionCsrf(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.authContext?.session && !SAFE.has(request.method)) return app.csrfProtection(request, reply, done);
    done();
  });
}

export default fp(sessionCookies, { name: 'session-cookies' });
