/**
 * The authorization endpoint (RFC 6749 4.1.1) at {site_url}/oauth/authorize: a registered client
 * sends the user here; they sign in (the console's session counts: one sign-in for both), see the
 * client's name, where it sends them back and the scopes, and allow or deny. The answer goes back
 * to the client's redirect URI; errors before the client and redirect URI are trusted stay on the
 * page. Same look, CSP, CSRF and throttles as the verification page (device-page.ts).
 */
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import type {
  AuthorizationParams,
  AuthorizationRequest,
  CheckedRequest,
} from '../../domain/oauth/authorization-code.service.js';
import { SESSION_TTL_MS } from '../../domain/oauth/sign-in.service.js';
import type { UserRecord } from '../../domain/ports.js';
import { endpoint } from '../../http/route.js';
import { SESSION_COOKIE, sessionCookieOptions } from '../../http/session.js';
import { authorizeErrorPage, authorizeSignInPage, consentPage } from './authorize-html.js';
import { fill, pickLocale, stringsFor } from './i18n/locales.js';
import { PAGE_CSP, type PageContext } from './page-html.js';

const PUBLIC = { public: true } as const;
const PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
] as const;
const MAX_PARAM = 4000;

/** The request's parameters from a query or a form; a parameter sent twice or too long is refused (RFC 6749 3.1). */
function readParams(source: unknown): { params: AuthorizationParams } | { problem: string } {
  const all = (source && typeof source === 'object' ? source : {}) as Record<string, unknown>;
  const params: AuthorizationParams = {};
  for (const name of PARAMS) {
    const v = all[name];
    if (v === undefined) continue;
    if (typeof v !== 'string') return { problem: `The parameter ${name} must be given once` };
    if (v.length > MAX_PARAM) return { problem: `The parameter ${name} is too long` };
    params[name] = v;
  }
  return { params };
}

export async function authorizePage(app: FastifyInstance) {
  const codes = app.services.authorizationCodes;
  const signIn = app.services.signIn;
  const cookieOptions = (request: FastifyRequest) => sessionCookieOptions(app, request);

  await app.register(formbody, { bodyLimit: 16 * 1024 });
  await app.register(rateLimit, { global: false });

  const context = (request: FastifyRequest, reply: FastifyReply): PageContext => {
    const locale = pickLocale(request.headers['accept-language']);
    return { locale, t: stringsFor(locale), csrf: reply.generateCsrf(cookieOptions(request)) };
  };
  /** The page; `sendsTo` is the origin the consent form's answer redirects to (CSP form-action covers redirects). */
  const html = (reply: FastifyReply, status: number, body: string, sendsTo?: string) =>
    reply
      .code(status)
      .header(
        'content-security-policy',
        sendsTo ? PAGE_CSP.replace("form-action 'self'", `form-action 'self' ${sendsTo}`) : PAGE_CSP,
      )
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .type('text/html; charset=utf-8')
      .send(body);
  const errorPage = (request: FastifyRequest, reply: FastifyReply, description: string) =>
    html(reply, 400, authorizeErrorPage(context(request, reply), { description }));

  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const locale = pickLocale(request.headers['accept-language']);
    const t = stringsFor(locale);
    const status = err instanceof AppError ? err.status : (err.statusCode ?? 500);
    if (status >= 500) request.log.error({ err, requestId: request.id }, 'unexpected failure');
    const text = status === 429 ? t.tooMany : status >= 500 ? t.failed : t.formExpired;
    return html(
      reply,
      status >= 500 ? 500 : status,
      authorizeErrorPage({ locale, t, csrf: '' }, { description: text }),
    );
  });

  const limit = (perMinute: number) =>
    endpoint({
      access: PUBLIC,
      raw: true,
      hide: true,
      config: { rateLimit: { max: perMinute, timeWindow: '1 minute' } },
    });
  const form = (perMinute: number) => ({ ...limit(perMinute), preHandler: app.csrfProtection });

  /**
   * The checked request, or the answer already sent: the error page, or the redirect of an
   * error back to a trusted client.
   */
  const checked = async (
    request: FastifyRequest,
    reply: FastifyReply,
    source: unknown,
  ): Promise<{ request: AuthorizationRequest; params: AuthorizationParams } | null> => {
    const read = readParams(source);
    if ('problem' in read) {
      errorPage(request, reply, read.problem);
      return null;
    }
    const result: CheckedRequest = await codes.check(read.params);
    if (result.ok) return { request: result.request, params: read.params };
    if (result.redirect) reply.redirect(result.redirect, 303);
    else errorPage(request, reply, result.description);
    return null;
  };

  const consent = (
    request: FastifyRequest,
    reply: FastifyReply,
    user: UserRecord,
    r: { request: AuthorizationRequest; params: AuthorizationParams },
  ) => {
    const target = new URL(r.request.redirectUri);
    return html(
      reply,
      200,
      consentPage(context(request, reply), {
        clientName: r.request.client.clientName,
        redirectHost: target.host,
        email: user.email,
        params: r.params,
        ...codes.grantable(user, r.request.scopes),
      }),
      target.origin,
    );
  };

  app.get('/oauth/authorize', limit(60), async (request, reply) => {
    const r = await checked(request, reply, request.query);
    if (!r) return reply;
    const user = await signIn.user(request.cookies[SESSION_COOKIE]);
    if (!user)
      return html(
        reply,
        200,
        authorizeSignInPage(context(request, reply), { clientName: r.request.client.clientName, params: r.params }),
      );
    return consent(request, reply, user, r);
  });

  app.post('/oauth/authorize/sign-in', form(10), async (request, reply) => {
    const r = await checked(request, reply, request.body);
    if (!r) return reply;
    const body = request.body as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.slice(0, 320) : '';
    const password = typeof body.password === 'string' ? body.password.slice(0, 1024) : '';
    const result = await signIn.signIn(email, password);
    if (!result.ok) {
      const c = context(request, reply);
      const page = (status: number, error: string) =>
        html(
          reply,
          status,
          authorizeSignInPage(c, { clientName: r.request.client.clientName, params: r.params, email, error }),
        );
      if (result.problem === 'throttled') {
        reply.header('retry-after', String(result.retryAfterSeconds));
        return page(429, fill(c.t.throttled, { minutes: Math.ceil((result.retryAfterSeconds ?? 60) / 60) }));
      }
      return page(401, c.t.wrongPassword);
    }
    reply.setCookie(SESSION_COOKIE, result.session, { ...cookieOptions(request), maxAge: SESSION_TTL_MS / 1000 });
    // Back to this page (a path of ours, never a URL from the request), now signed in.
    return reply.redirect(`/oauth/authorize?${new URLSearchParams(r.params as Record<string, string>)}`, 303);
  });

  app.post('/oauth/authorize', form(20), async (request, reply) => {
    const r = await checked(request, reply, request.body);
    if (!r) return reply;
    const user = await signIn.user(request.cookies[SESSION_COOKIE]);
    if (!user)
      return html(
        reply,
        401,
        authorizeSignInPage(context(request, reply), { clientName: r.request.client.clientName, params: r.params }),
      );
    const decision = (request.body as Record<string, unknown>).decision;
    if (decision !== 'allow' && decision !== 'deny') return consent(request, reply, user, r);
    return reply.redirect(await codes.decide(user, r.request, decision === 'allow'), 303);
  });
}
