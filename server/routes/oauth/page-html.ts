/**
 * The verification page's HTML: server-rendered, no script at all, one external stylesheet, so
 * the page runs under `default-src 'none'`. Every value is escaped here.
 */
import { RTL_LANGUAGES } from '../../http/languages.js';
import type { Scope } from '../../../shared/scopes.js';
import type { DeviceRequestView } from '../../domain/oauth/device-flow.service.js';
import { fill, type Locale, type Strings } from './i18n/locales.js';
import { escapeHtml } from '../../http/html.js';

export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const STYLESHEET = `:root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5}
body{margin:0;padding:2rem 1rem;background:Canvas;color:CanvasText}
main{max-width:32rem;margin:0 auto}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
label{display:block;font-weight:600;margin-top:1rem}
input{display:block;width:100%;box-sizing:border-box;font:inherit;padding:.5rem;margin-top:.25rem;border:1px solid GrayText;border-radius:4px}
input[name=user_code]{font-family:ui-monospace,monospace;letter-spacing:.15em;text-transform:uppercase}
button{font:inherit;padding:.5rem 1.25rem;margin:1rem .5rem 0 0;border-radius:4px;border:1px solid ButtonBorder;background:ButtonFace;color:ButtonText;cursor:pointer}
button.primary{background:#1d4ed8;border-color:#1d4ed8;color:#fff}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.hint{color:#4b5563;font-size:.9rem;margin:.25rem 0 0}
@media (prefers-color-scheme:dark){.hint{color:#c4c9d0}}
.error{border-left:4px solid #b91c1c;padding:.5rem .75rem;background:color-mix(in srgb,#b91c1c 10%,Canvas)}
.code{font-family:ui-monospace,monospace;font-size:1.75rem;letter-spacing:.2em}
.signed-in{display:flex;gap:1rem;align-items:baseline;justify-content:space-between;border-bottom:1px solid GrayText;margin-bottom:1.5rem}
.signed-in button{margin:0 0 .5rem}
code{font-family:ui-monospace,monospace}
`;

export interface PageContext {
  locale: Locale;
  t: Strings;
  csrf: string;
  /** The signed-in user's e-mail, shown with a sign-out button. */
  email?: string;
  /** The page's title, when not the verification page's. */
  title?: string;
}

export function layout(c: PageContext, body: string): string {
  const signedIn = c.email
    ? `<div class="signed-in"><p>${escapeHtml(fill(c.t.signedInAs, { email: c.email }))}</p>
<form method="post" action="/device/sign-out">${csrfField(c)}<button type="submit">${escapeHtml(c.t.signOut)}</button></form></div>\n`
    : '';
  return `<!doctype html>
<html lang="${c.locale}"${RTL_LANGUAGES.includes(c.locale) ? ' dir="rtl"' : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(c.title ?? c.t.title)} · Parley</title>
<link rel="stylesheet" href="/device/style.css">
<link rel="icon" href="data:,">
</head>
<body>
<main>
${signedIn}${body}
</main>
</body>
</html>
`;
}

export const csrfField = (c: PageContext) => `<input type="hidden" name="_csrf" value="${escapeHtml(c.csrf)}">`;
export const alert = (text: string | undefined) =>
  text ? `<p class="error" role="alert">${escapeHtml(text)}</p>\n` : '';

/**
 * The e-mail and password fields and the submit button of both sign-in forms (the verification
 * page's, the authorization page's). The e-mail a failed attempt gave comes back filled in, and
 * the focus goes to the first field still to fill.
 */
export function signInFields(c: PageContext, email: string | undefined): string {
  return `<label for="email">${escapeHtml(c.t.email)}</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" value="${escapeHtml(email ?? '')}"${email ? '' : ' autofocus'}>
<label for="password">${escapeHtml(c.t.password)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256"${email ? ' autofocus' : ''}>
<button class="primary" type="submit">${escapeHtml(c.t.signIn)}</button>`;
}

export function signInPage(c: PageContext, p: { userCode?: string; email?: string; error?: string }): string {
  return layout(
    c,
    `<h1>${escapeHtml(c.t.signInHeading)}</h1>
<p>${escapeHtml(c.t.signInIntro)}</p>
${alert(p.error)}<form method="post" action="/device/sign-in">
${csrfField(c)}
${p.userCode ? `<input type="hidden" name="user_code" value="${escapeHtml(p.userCode)}">` : ''}
${signInFields(c, p.email)}
</form>`,
  );
}

export function codePage(c: PageContext, p: { userCode?: string; error?: string }): string {
  return layout(
    c,
    `<h1>${escapeHtml(c.t.codeHeading)}</h1>
${alert(p.error)}<form method="post" action="/device">
${csrfField(c)}
<label for="user_code">${escapeHtml(c.t.codeLabel)}</label>
<input id="user_code" name="user_code" type="text" inputmode="text" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required maxlength="32" aria-describedby="code-hint" value="${escapeHtml(p.userCode ?? '')}" autofocus>
<p class="hint" id="code-hint">${escapeHtml(c.t.codeHint)}</p>
<button class="primary" type="submit">${escapeHtml(c.t.continue)}</button>
</form>`,
  );
}

export function approvePage(
  c: PageContext,
  p: { request: DeviceRequestView; withheld: Scope[]; error?: string },
): string {
  const r = p.request;
  const scopes = r.scopes
    ? `<ul>${r.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ul>`
    : `<p>${escapeHtml(c.t.standardAccess)}</p>`;
  const withheld = p.withheld.length
    ? `<p>${escapeHtml(c.t.withheld)}</p><ul>${p.withheld.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ul>`
    : '';
  const unknown = r.chatbots?.some((b) => b.title === null) ?? false;
  const chatbots = r.chatbots
    ? `<ul>${r.chatbots.map((b) => `<li>${b.title === null ? escapeHtml(fill(c.t.unknownChatbot, { id: b.id })) : `${escapeHtml(b.title)} (<code>${escapeHtml(b.id)}</code>)`}</li>`).join('')}</ul>`
    : `<p>${escapeHtml(c.t.allChatbots)}</p>`;
  return layout(
    c,
    `<h1>${escapeHtml(fill(c.t.approveHeading, { client: r.clientName }))}</h1>
${alert(p.error ?? (unknown ? c.t.cannotApprove : undefined))}<p>${escapeHtml(c.t.compareCode)}</p>
<p class="code">${escapeHtml(r.userCode)}</p>
<h2>${escapeHtml(c.t.scopesHeading)}</h2>
${scopes}
${withheld}<h2>${escapeHtml(c.t.chatbotsHeading)}</h2>
${chatbots}
<p class="hint">${escapeHtml(fill(c.t.expires, { time: r.expiresAt.slice(0, 16).replace('T', ' ') }))}</p>
<form method="post" action="/device/decision">
${csrfField(c)}
<input type="hidden" name="user_code" value="${escapeHtml(r.userCode)}">
${unknown ? '' : `<button class="primary" type="submit" name="decision" value="approve">${escapeHtml(c.t.approve)}</button>\n`}<button type="submit" name="decision" value="deny">${escapeHtml(c.t.deny)}</button>
</form>`,
  );
}

export function messagePage(c: PageContext, p: { heading: string; text: string; link?: boolean }): string {
  return layout(
    c,
    `<h1>${escapeHtml(p.heading)}</h1>
<p>${escapeHtml(p.text)}</p>
${p.link ? `<p><a href="/device">${escapeHtml(c.t.startOver)}</a></p>` : ''}`,
  );
}
