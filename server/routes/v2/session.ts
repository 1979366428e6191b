/**
 * The team's sign-in for the console: `GET /session` (who is signed in, and the CSRF token every
 * change must send), `POST /session` (sign in with e-mail and password: sets the session cookie),
 * `DELETE /session` (sign out), `DELETE /sessions` (sign out everywhere) and, on a fresh install,
 * `POST /session/setup` (the first owner's password, with the link the start line printed). The
 * cookie is then the user's credential on the whole v2 API (http/access.ts, http/session.ts).
 * Limits as on the device page: wrong passwords per e-mail (the sign-in service) and sign-ins per
 * IP address.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { ROLES } from '../../../shared/scopes.js';
import { AppError } from '../../domain/errors.js';
import { SESSION_TTL_MS } from '../../domain/oauth/sign-in.service.js';
import type { UserRecord } from '../../domain/ports.js';
import { endpoint } from '../../http/route.js';
import { SESSION_COOKIE, sessionCookieOptions } from '../../http/session.js';

const SessionUser = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  role: Type.Enum([...ROLES]),
  accountId: Type.String(),
});

const Session = Type.Object({
  user: Type.Union([SessionUser, Type.Null()], { description: 'The signed-in user; null when nobody is' }),
  csrfToken: Type.String({
    description: 'Send it as the X-CSRF-Token header with every change made with the session cookie',
  }),
  firstRun: Type.Boolean({
    description:
      'No user has a password yet: the first owner sets theirs with the set-up link the server printed at start (POST /session/setup)',
  }),
});

const Setup = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 512, description: 'The token of the set-up link (after `#`)' }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

const SignIn = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

const userView = (u: {
  id: string;
  email: string;
  name: string | null;
  role: (typeof ROLES)[number];
  accountId: string;
}) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  accountId: u.accountId,
});

const tags = ['session'];

export default async function session(app: FastifyInstance) {
  const signIn = app.services.signIn;
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      new AppError('RATE_LIMITED', `Too many sign-ins from this address: at most ${context.max} per ${context.after}`, {
        hint: `Try again in ${context.after}`,
        headers: { 'retry-after': String(Math.ceil(context.ttl / 1000)) },
      }),
  });
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');
  const csrfToken = (request: FastifyRequest, reply: FastifyReply) =>
    reply.generateCsrf(sessionCookieOptions(app, request));
  const signedIn = (request: FastifyRequest, reply: FastifyReply, result: { session: string; user: UserRecord }) => {
    reply.setCookie(SESSION_COOKIE, result.session, {
      ...sessionCookieOptions(app, request),
      maxAge: SESSION_TTL_MS / 1000,
    });
    return { user: userView(result.user), csrfToken: csrfToken(request, reply), firstRun: false };
  };

  app.get(
    '/session',
    endpoint({
      access: { public: true },
      data: Session,
      tags,
      operationId: 'getSession',
      summary: 'Who is signed in (the session cookie), and the CSRF token for changes',
      description:
        'Also sets the CSRF secret cookie when the browser has none: call it before signing in. Not for tokens: a bearer token needs no session.',
      config: { rateLimit: { max: 120, timeWindow: '1 minute' } },
    }),
    async (request, reply) => {
      noStore(reply);
      const user = await signIn.user(request.cookies[SESSION_COOKIE]);
      return {
        user: user ? userView(user) : null,
        csrfToken: csrfToken(request, reply),
        firstRun: user ? false : await signIn.firstRun(),
      };
    },
  );

  app.post(
    '/session',
    {
      ...endpoint({
        access: { public: true },
        data: Session,
        body: SignIn,
        tags,
        operationId: 'signIn',
        summary: 'Sign in with e-mail and password: sets the session cookie',
        description:
          'The password is the one the operator set (`users set-password`). Needs the X-CSRF-Token of GET /session. 401 CREDENTIALS_NOT_VALID for a wrong e-mail or password (one answer for both); 429 RATE_LIMITED after 5 wrong passwords for an e-mail within 15 minutes, or 10 sign-ins from one address within a minute. The session ends after 12 hours, or 2 hours without use.',
        config: { rateLimit: { max: 10, timeWindow: '1 minute' } },
      }),
      preHandler: app.csrfProtection,
    },
    async (request, reply) => {
      noStore(reply);
      const { email, password } = request.body as { email: string; password: string };
      const result = await signIn.signIn(email, password);
      if (!result.ok) {
        if (result.problem === 'throttled') {
          throw new AppError('RATE_LIMITED', 'Too many wrong passwords for this e-mail', {
            hint: `Try again in ${Math.ceil(result.retryAfterSeconds / 60)} minutes`,
            headers: { 'retry-after': String(result.retryAfterSeconds) },
          });
        }
        throw new AppError('CREDENTIALS_NOT_VALID', 'The e-mail or the password is not right', {
          hint: 'Check both; an operator sets passwords with `npm run cli -- users set-password --email <e-mail>`',
        });
      }
      return signedIn(request, reply, result);
    },
  );

  app.post(
    '/session/setup',
    {
      ...endpoint({
        access: { public: true },
        data: Session,
        body: Setup,
        tags,
        operationId: 'completeFirstRunSetup',
        summary: 'First run: the first owner chooses their password with the set-up link, and is signed in',
        description:
          'On a fresh install (no user has a password) the server prints a set-up link in its start line: `{site_url}/console/setup#<token>`, valid 24 hours. It works once, and not at all once any password exists: 400 SETUP_LINK_NOT_VALID. Needs the X-CSRF-Token of GET /session.',
        config: { rateLimit: { max: 10, timeWindow: '1 minute' } },
      }),
      preHandler: app.csrfProtection,
    },
    async (request, reply) => {
      noStore(reply);
      const { token, password } = request.body as { token: string; password: string };
      return signedIn(request, reply, await signIn.completeSetup(token, password));
    },
  );

  app.delete(
    '/session',
    endpoint({
      access: { scopes: [], whileInactive: true },
      data: Type.Object({
        signedOut: Type.Boolean({ description: 'false when the caller is a token, not a session (nothing ended)' }),
      }),
      tags,
      operationId: 'signOut',
      summary: 'Sign out: ends this session and clears its cookie',
    }),
    async (request, reply) => {
      noStore(reply);
      // A token is no session: nothing to end (revoke a token with DELETE /tokens/{tokenId}).
      if (!request.auth.session) return { signedOut: false };
      await signIn.signOut(request.cookies[SESSION_COOKIE]);
      reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(app, request));
      return { signedOut: true };
    },
  );

  app.delete(
    '/sessions',
    endpoint({
      access: { scopes: [], whileInactive: true },
      data: Type.Object({ signedOut: Type.Boolean() }),
      tags,
      operationId: 'signOutEverywhere',
      summary: "Sign out everywhere: ends every session of the caller's user, on every device",
      description: 'Tokens stay valid: revoke them with DELETE /tokens/{tokenId}.',
    }),
    async (request, reply) => {
      noStore(reply);
      await signIn.signOutEverywhere(request.auth.user);
      if (request.auth.session) reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(app, request));
      return { signedOut: true };
    },
  );
}
