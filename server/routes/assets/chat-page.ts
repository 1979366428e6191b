/** `GET /chat/{chatbotId}`: the hosted full-screen chat, for mobile webviews and shared links. */
import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import { pickLanguage, RTL_LANGUAGES } from '../../http/languages.js';
import { chatNotFoundPage, hostedChatPage, NOT_FOUND_LANGUAGES } from './chat-page-html.js';
import { OPEN } from '../open.js';

const CHATBOT_ID = /^[A-Za-z0-9_-]{1,64}$/;

export default async function chatPage(app: FastifyInstance) {
  app.get<{ Params: { chatbotId: string }; Querystring: Record<string, string | undefined> }>(
    '/chat/:chatbotId',
    OPEN,
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
