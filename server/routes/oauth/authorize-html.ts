/**
 * The authorization page's HTML (GET /oauth/authorize): sign in, then allow or deny a registered
 * client. The verification page's look and rules (page-html.ts): no script, every value escaped.
 * The request's parameters travel in hidden fields and are checked again when posted.
 */
import type { Scope } from '../../../shared/scopes.js';
import type { AuthorizationParams } from '../../domain/oauth/authorization-code.service.js';
import { escapeHtml } from '../../http/html.js';
import { fill } from './i18n/locales.js';
import { alert, csrfField, layout, type PageContext, signInFields } from './page-html.js';

const hidden = (params: AuthorizationParams) =>
  Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v!)}">`)
    .join('\n');

const list = (scopes: readonly Scope[]) =>
  `<ul>${scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ul>`;

export function authorizeSignInPage(
  c: PageContext,
  p: { clientName: string; params: AuthorizationParams; email?: string; error?: string },
): string {
  return layout(
    { ...c, title: c.t.authorizeTitle },
    `<h1>${escapeHtml(c.t.authorizeTitle)}</h1>
<p>${escapeHtml(fill(c.t.authorizeSignInIntro, { client: p.clientName }))}</p>
${alert(p.error)}<form method="post" action="/oauth/authorize/sign-in">
${csrfField(c)}
${hidden(p.params)}
${signInFields(c, p.email)}
</form>`,
  );
}

export function consentPage(
  c: PageContext,
  p: {
    clientName: string;
    redirectHost: string;
    email: string;
    params: AuthorizationParams;
    granted: readonly Scope[];
    withheld: readonly Scope[];
    error?: string;
  },
): string {
  const none = p.granted.length === 0;
  return layout(
    { ...c, title: c.t.authorizeTitle },
    `<h1>${escapeHtml(fill(c.t.approveHeading, { client: p.clientName }))}</h1>
${alert(p.error ?? (none ? c.t.noScopeAllowed : undefined))}<p class="hint">${escapeHtml(c.t.unverifiedClient)}</p>
<p>${escapeHtml(fill(c.t.returnsTo, { host: p.redirectHost }))}</p>
<p>${escapeHtml(fill(c.t.signedInAs, { email: p.email }))}</p>
<h2>${escapeHtml(c.t.scopesHeading)}</h2>
${list(p.granted)}
${p.withheld.length ? `<p>${escapeHtml(c.t.withheld)}</p>${list(p.withheld)}\n` : ''}<h2>${escapeHtml(c.t.chatbotsHeading)}</h2>
<p>${escapeHtml(c.t.allChatbots)}</p>
<form method="post" action="/oauth/authorize">
${csrfField(c)}
${hidden(p.params)}
${none ? '' : `<button class="primary" type="submit" name="decision" value="allow">${escapeHtml(c.t.allow)}</button>\n`}<button type="submit" name="decision" value="deny">${escapeHtml(c.t.deny)}</button>
</form>`,
  );
}

export function authorizeErrorPage(c: PageContext, p: { description: string }): string {
  return layout(
    { ...c, title: c.t.authorizeTitle },
    `<h1>${escapeHtml(c.t.requestInvalid)}</h1>
${alert(p.description)}`,
  );
}
