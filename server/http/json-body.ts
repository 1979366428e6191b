/**
 * The JSON body parser: fastify's own (prototype-poisoning checks included), except that an
 * empty body reads as `{}` (curl -X POST -H 'Content-Type: application/json' on an action route
 * is the usual habit), a syntax error says where it is, and no document is nested deeper than
 * MAX_JSON_DEPTH. Every JSON body (v2, v0, OAuth, the widget's routes) and every WebSocket frame
 * goes through this one limit: a deep value would otherwise overflow the stack of whatever walks it.
 */
import type { FastifyInstance } from 'fastify';
import { AppError, validationFailed } from '../domain/errors.js';

/** Objects and arrays inside each other; no API body comes near it (free-form fields stop at 5). */
export const MAX_JSON_DEPTH = 32;

/** Whether the JSON text nests objects and arrays more than `max` deep (brackets inside strings do not count). */
export function nestedTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}

export const tooDeep = (what = 'The body') =>
  validationFailed(
    [{ path: [], message: `is nested more than ${MAX_JSON_DEPTH} levels deep` }],
    `${what} nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep`,
  );

/** "... in JSON at position 13" -> line and column (1-based) of that position in `text`. */
export function jsonErrorWhere(text: string, message: string): string {
  const match = /at position (\d+)/.exec(message);
  const reason = message.replace(/\s*in JSON at position \d+.*$/, '').replace(/, ".*" is not valid JSON$/, '');
  if (!match)
    return /Unexpected end of JSON input/.test(message)
      ? 'it ends too early (a missing closing bracket or quote?)'
      : reason;
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
    if (nestedTooDeep(text)) return done(tooDeep(), undefined);
    parse(request, text, (err, value) => {
      if (!err) return done(null, value);
      // fastify's error hides JSON.parse's message; parsing again (failures only) recovers it.
      let where = 'it sets __proto__ or constructor.prototype';
      try {
        JSON.parse(text);
      } catch (syntax) {
        where = jsonErrorWhere(text, (syntax as Error).message);
      }
      done(
        new AppError('INVALID_JSON', `The body is not valid JSON: ${where}`, {
          hint: 'Check quotes, commas and brackets; send {} when there is nothing to send',
        }),
        undefined,
      );
    });
  });
}
