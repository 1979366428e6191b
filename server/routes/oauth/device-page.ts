/**
 * The verification page (RFC 8628 3.3) at {site_url}/device: sign in with e-mail and password,
 * enter the user code, approve or deny. Server-rendered HTML under a strict CSP, no script; every
 * form carries a CSRF token; the session is the console's (http/session.ts): one sign-in for both.
 */
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Scope } from '../../../shared/scopes.js';
import { effectiveScopes } from '../../domain/auth.js';
import { AppError } from '../../domain/errors.js';
import type { UserRecord } from '../../domain/ports.js';
import { endpoint } from '../../http/route.js';
import { SESSION_COOKIE, sessionCookieOptions } from '../../http/session.js';
import { SESSION_TTL_MS } from '../../domain/oauth/sign-in.service.js';
import { approvePage, codePage, messagePage, PAGE_CSP, type PageContext, signInPage, STYLESHEET } from './page-html.js';
import { fill, pickLocale, stringsFor } from './i18n/locales.js';

const PUBLIC = { public: true } as const;

type Form = Record<string, unknown>;
const field = (request: FastifyRequest, name: string): string => {
  const v = (request.body as Form | undefined)?.[name];
  return typeof v === 'string' ? v : '';
};

export async function devicePage(app: FastifyInstance) {
  const signIn = app.services.signIn;
  const flow = app.services.deviceFlow;
  const cookieOptions = (request: FastifyRequest) => sessionCookieOptions(app, request);

  await app.register(formbody, { bodyLimit: 16 * 1024 });
  await app.register(rateLimit, { global: false });

  /** The page's context: locale, strings and a CSRF token (its secret cookie set when new). */
  const context = (request: FastifyRequest, reply: FastifyReply, user?: UserRecord | null): PageContext => {
    const locale = pickLocale(request.headers['accept-language']);
    return {
      locale,
      t: stringsFor(locale),
      csrf: reply.generateCsrf(cookieOptions(request)),
      ...(user ? { email: user.email } : {}),
    };
  };
  const html = (reply: FastifyReply, status: number, body: string) =>
    reply
      .code(status)
      .header('content-security-policy', PAGE_CSP)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .type('text/html; charset=utf-8')
      .send(body);
  const sessionUser = (request: FastifyRequest) => signIn.user(request.cookies[SESSION_COOKIE]);

  // Errors of these routes are pages, not JSON: a stale CSRF token, too many requests, a bad form.
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const t = stringsFor(pickLocale(request.headers['accept-language']));
    const status = err instanceof AppError ? err.status : (err.statusCode ?? 500);
    if (status >= 500) request.log.error({ err, requestId: request.id }, 'unexpected failure');
    const text = err.code?.startsWith('FST_CSRF')
      ? t.formExpired
      : status === 429
        ? t.tooMany
        : status >= 500
          ? t.failed
          : t.formExpired;
    const c: PageContext = { locale: pickLocale(request.headers['accept-language']), t, csrf: '' };
    return html(reply, status >= 500 ? 500 : status, messagePage(c, { heading: t.title, text, link: true }));
  });

  app.get('/device/style.css', endpoint({ access: PUBLIC, raw: true, hide: true }), async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
  );

  /** A form's route: `perMinute` posts from an address, each with the CSRF token of the page that showed the form. */
  const form = (perMinute: number) => ({
    ...endpoint({
      access: PUBLIC,
      raw: true,
      hide: true,
      config: { rateLimit: { max: perMinute, timeWindow: '1 minute' } },
    }),
    preHandler: app.csrfProtection,
  });
  /** "Too many tries", with the wait in whole minutes. */
  const throttled = (c: PageContext, retryAfterSeconds: number | undefined) =>
    fill(c.t.throttled, { minutes: Math.ceil((retryAfterSeconds ?? 60) / 60) });

  app.get<{ Querystring: { user_code?: string } }>(
    '/device',
    endpoint({ access: PUBLIC, raw: true, hide: true, config: { rateLimit: { max: 60, timeWindow: '1 minute' } } }),
    async (request, reply) => {
      const q = request.query.user_code;
      const userCode = typeof q === 'string' ? q.slice(0, 32) : undefined;
      const user = await sessionUser(request);
      const c = context(request, reply, user);
      return html(reply, 200, user ? codePage(c, { userCode }) : signInPage(c, { userCode }));
    },
  );

  app.post('/device/sign-in', form(10), async (request, reply) => {
    const email = field(request, 'email').slice(0, 320);
    const userCode = field(request, 'user_code').slice(0, 32);
    const result = await signIn.signIn(email, field(request, 'password').slice(0, 1024));
    if (!result.ok) {
      const c = context(request, reply);
      if (result.problem === 'throttled') {
        reply.header('retry-after', String(result.retryAfterSeconds));
        return html(
          reply,
          429,
          signInPage(c, {
            userCode,
            email,
            error: throttled(c, result.retryAfterSeconds),
          }),
        );
      }
      return html(reply, 401, signInPage(c, { userCode, email, error: c.t.wrongPassword }));
    }
    reply.setCookie(SESSION_COOKIE, result.session, { ...cookieOptions(request), maxAge: SESSION_TTL_MS / 1000 });
    return reply.redirect(userCode ? `/device?user_code=${encodeURIComponent(userCode)}` : '/device', 303);
  });

  app.post(
    '/device/sign-out',
    { ...endpoint({ access: PUBLIC, raw: true, hide: true }), preHandler: app.csrfProtection },
    async (request, reply) => {
      await signIn.signOut(request.cookies[SESSION_COOKIE]);
      reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
      return reply.redirect('/device', 303);
    },
  );

  /** The user code's request, or the code form again with why not. */
  const withSession = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await sessionUser(request);
    if (!user) {
      const c = context(request, reply);
      html(reply, 401, signInPage(c, { userCode: field(request, 'user_code').slice(0, 32) }));
      return null;
    }
    return user;
  };

  app.post('/device', form(20), async (request, reply) => {
    const user = await withSession(request, reply);
    if (!user) return reply;
    const input = field(request, 'user_code');
    const found = await flow.lookup(user, input);
    const c = context(request, reply, user);
    if (!found.ok) {
      const tooMany = found.problem === 'throttled';
      if (tooMany) reply.header('retry-after', String(found.retryAfterSeconds));
      const error = tooMany ? throttled(c, found.retryAfterSeconds) : c.t.unknownCode;
      return html(reply, tooMany ? 429 : 400, codePage(c, { userCode: input.slice(0, 32), error }));
    }
    return html(reply, 200, approvePage(c, { request: found.request, withheld: withheld(user, found.request.scopes) }));
  });

  app.post('/device/decision', form(20), async (request, reply) => {
    const user = await withSession(request, reply);
    if (!user) return reply;
    const decision = field(request, 'decision');
    const c = context(request, reply, user);
    if (decision !== 'approve' && decision !== 'deny')
      return html(reply, 400, codePage(c, { userCode: field(request, 'user_code').slice(0, 32) }));
    const result = await flow.decide(user, field(request, 'user_code'), decision === 'approve');
    if (!result.ok) {
      const tooMany = result.problem === 'throttled';
      return html(
        reply,
        tooMany ? 429 : 400,
        codePage(c, { error: tooMany ? throttled(c, result.retryAfterSeconds) : c.t.unknownCode }),
      );
    }
    if (!result.decided) {
      // Chatbots outside the account (approval refused) or answered meanwhile in another tab.
      const error = result.request.chatbots?.some((b) => b.title === null) ? c.t.cannotApprove : c.t.alreadyAnswered;
      return html(
        reply,
        409,
        approvePage(c, { request: result.request, withheld: withheld(user, result.request.scopes), error }),
      );
    }
    return decision === 'approve'
      ? html(reply, 200, messagePage(c, { heading: c.t.approvedHeading, text: c.t.approved }))
      : html(reply, 200, messagePage(c, { heading: c.t.deniedHeading, text: c.t.denied }));
  });
}

/** Scopes asked for that the user's role withholds (the token would not act with them). */
function withheld(user: UserRecord, scopes: readonly Scope[] | null): Scope[] {
  if (!scopes) return [];
  const allowed = effectiveScopes(scopes, user.role);
  return scopes.filter((s) => !allowed.has(s));
}
