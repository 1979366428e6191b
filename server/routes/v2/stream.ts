/**
 * `GET /api/v2/stream`: the team's live stream over a WebSocket (server/realtime/team-connection.ts).
 * A v2 token with conversations:read, from `Authorization: Bearer`, the `parley.token.<token>`
 * subprotocol (browsers) or the hello frame; never the query string. Or, for the console, the
 * signed-in session's cookie, from a page of this site only (Origin checked: a browser sends the
 * cookie with a socket any page opens). Declared public because it authenticates itself.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CLOSE } from '../../../shared/protocol.js';
import { type AuthContext, requireScopes } from '../../domain/auth.js';
import { AppError } from '../../domain/errors.js';
import { SESSION_COOKIE } from '../../http/session.js';
import { requireActive } from '../../domain/plans.js';
import { afterAdmission, Holdings, runSocket, socketTransport, subprotocolToken } from '../../realtime/socket.js';
import { TeamConnection } from '../../realtime/team-connection.js';
import { CloseError } from '../../realtime/visitor-connection.js';
import { connectsPerMinute, rateLimitOptions } from '../rate-limit.js';

export const TEAM_TOKEN_PROTOCOL_PREFIX = 'parley.token.';

function offeredToken(request: FastifyRequest): string | null {
  const m = /^Bearer (\S{1,512})$/i.exec(request.headers.authorization ?? '');
  return m ? m[1] : subprotocolToken(request.headers['sec-websocket-protocol'], TEAM_TOKEN_PROTOCOL_PREFIX);
}

declare module 'fastify' {
  interface FastifyRequest {
    teamAuth?: AuthContext | CloseError;
  }
}

export default async function stream(app: FastifyInstance) {
  // The visitor doors' limits: connections per minute per address (counted in the same Redis
  // keys), and the socket slots per address shared with the visitor sockets.
  await app.register(rateLimit, rateLimitOptions(app, 'parley:rl:'));
  const gateway = app.realtime;
  const member = (auth: AuthContext | null, why: string): AuthContext => {
    if (!auth) throw new AppError('TOKEN_NOT_VALID', why);
    requireScopes(auth, ['conversations:read']);
    requireActive(auth.account);
    return auth;
  };
  const authenticate = async (token: string) =>
    member(await app.services.tokens.authenticate(token), 'The token is unknown or was revoked');
  const reauthorize = async (was: AuthContext) =>
    was.session
      ? member(await app.services.signIn.current(was), 'The session has ended: sign in again')
      : member(await app.services.tokens.current(was), 'The token was revoked');
  const siteOrigin = new URL(app.config.siteUrl).origin;
  /** The console's session, when the socket comes from a page of this site. */
  const sessionOf = async (request: FastifyRequest): Promise<AuthContext | null> => {
    const cookie = request.cookies[SESSION_COOKIE];
    if (!cookie) return null;
    const origin = request.headers.origin;
    const host = request.headers.host;
    const sameSite = origin === siteOrigin || (!!host && (origin === `http://${host}` || origin === `https://${host}`));
    if (!sameSite) throw new AppError('TOKEN_NOT_VALID', 'A session cookie is accepted only from pages of this site');
    return member(await app.services.signIn.authenticate(cookie), 'The session has ended: sign in again');
  };

  app.get(
    '/stream',
    {
      websocket: true,
      config: { access: { public: true }, raw: true, rateLimit: connectsPerMinute(app) },
      preValidation: async (request) => {
        const token = offeredToken(request);
        if (!token) {
          const session = await sessionOf(request).catch(
            (err) => new CloseError(CLOSE.sessionInvalid, err instanceof Error ? err.message : 'session not valid'),
          );
          if (session) request.teamAuth = session;
          return;
        }
        request.teamAuth = await authenticate(token).catch(
          (err) => new CloseError(CLOSE.sessionInvalid, err instanceof Error ? err.message : 'token not valid'),
        );
      },
    },
    (socket, request) => {
      const pre = request.teamAuth;
      if (pre instanceof CloseError) return socket.close(pre.code, pre.message.slice(0, 120));
      if (app.metrics) socket.once('close', app.metrics.connectionOpened('team_socket'));
      const holdings = new Holdings();
      const admission = gateway.admit('ip', request.ip).then((release) => {
        if (release) return (holdings.keep('ip', release), true);
        if (socket.readyState === socket.OPEN) socket.close(CLOSE.tooManySockets, 'too many sockets from this address');
        return false;
      });
      const admitToken = async (tokenId: string) => {
        const release = await gateway.admit('token', tokenId);
        if (release) holdings.keep('token', release);
        return release !== null;
      };
      const connection = new TeamConnection(
        app.connections.team,
        pre ?? null,
        socketTransport(socket, gateway),
        authenticate,
        reauthorize,
        admitToken,
      );
      runSocket(socket, gateway, afterAdmission(connection, admission), () => holdings.releaseAll());
    },
  );
}
