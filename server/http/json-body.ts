/**
 * The JSON body parser: fastify's own (prototype-poisoning checks included), except that an
 * empty body reads as `{}` (curl -X POST -H 'Content-Type: application/json' on an action route
 * is the usual habit) and a syntax error says where it is.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.js';

/** "... in JSON at position 13" -> line and column (1-based) of that position in `text`. */
export function jsonErrorWhere(text: string, message: string): string {
  const match = /at position (\d+)/.exec(message);
  const reason = message.replace(/\s*in JSON at position \d+.*$/, '').replace(/, ".*" is not valid JSON$/, '');
  if (!match) return /Unexpected end of JSON input/.test(message) ? 'it ends too early (a missing closing bracket or quote?)' : reason;
  const position = Number(match[1]);
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `${reason} at line ${line}, column ${column}`;
}

export function installJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, {});
    parse(request, text, (err, value) => {
      if (!err) return done(null, value);
      // fastify's error hides JSON.parse's message; parsing again (failures only) recovers it.
      let where = 'it sets __proto__ or constructor.prototype';
      try {
        JSON.parse(text);
      } catch (syntax) {
        where = jsonErrorWhere(text, (syntax as Error).message);
      }
      done(new AppError('INVALID_JSON', `The body is not valid JSON: ${where}`, { hint: 'Check quotes, commas and brackets; send {} when there is nothing to send' }), undefined);
    });
  });
}
