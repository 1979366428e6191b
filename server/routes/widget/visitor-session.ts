/** The visitor session of the fallback's requests (`POST /api/widget/sse` and `/frames`). */
import type { FastifyRequest } from 'fastify';
import { sessionNotValid, type WidgetService } from '../../domain/widget/widget.service.js';

/** The session token of `Authorization: Bearer <token>`. */
export function bearer(request: FastifyRequest): string | null {
  const m = /^Bearer (\S{1,1024})$/i.exec(request.headers.authorization ?? '');
  return m ? m[1] : null;
}

/** The request's session, from a page among its chatbot's allowed domains. */
export async function sessionOf(widget: WidgetService, request: FastifyRequest) {
  const token = bearer(request);
  if (!token) throw sessionNotValid('send Authorization: Bearer <session token>');
  const session = await widget.authenticate(token);
  widget.checkOrigin(session.chatbot, request.headers.origin);
  return session;
}
