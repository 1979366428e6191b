/**
 * What a browser does with the verification page, over plain HTTP: keeps cookies, reads the CSRF
 * token from the form it was served and posts form-encoded bodies. Works against a real server
 * (fetch) or an app (inject) through the one `send` it is given.
 */
export interface FormResponse {
  status: number;
  headers: Headers;
  body: string;
}

export type Send = (request: {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}) => Promise<FormResponse>;

export class FormBrowser {
  readonly cookies = new Map<string, string>();
  /** The raw Set-Cookie lines of the last response, for attribute checks. */
  lastSetCookie: string[] = [];
  constructor(
    private readonly send: Send,
    private readonly headers: Record<string, string> = {},
  ) {}

  private cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(res: FormResponse) {
    this.lastSetCookie = res.headers.getSetCookie();
    for (const line of this.lastSetCookie) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  async get(path: string): Promise<FormResponse> {
    return this.remember(
      await this.send({
        method: 'GET',
        path,
        headers: { ...this.headers, ...(this.cookies.size ? { cookie: this.cookieHeader() } : {}) },
      }),
    );
  }

  async post(path: string, fields: Record<string, string>): Promise<FormResponse> {
    return this.remember(
      await this.send({
        method: 'POST',
        path,
        headers: {
          ...this.headers,
          'content-type': 'application/x-www-form-urlencoded',
          ...(this.cookies.size ? { cookie: this.cookieHeader() } : {}),
        },
        body: new URLSearchParams(fields).toString(),
      }),
    );
  }

  /** Posts the page's form (its CSRF token included) with `fields`. */
  async submit(page: FormResponse, action: string, fields: Record<string, string>): Promise<FormResponse> {
    return this.post(action, { _csrf: csrfToken(page.body), ...fields });
  }
}

export function csrfToken(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no CSRF token in the page:\n${html.slice(0, 500)}`);
  return m[1].replace(/&#(\d+);/g, (_x, n: string) => String.fromCharCode(Number(n)));
}

/** Signs in and approves (or denies) a user code, as a person at a browser would. */
export async function answerDeviceCode(
  browser: FormBrowser,
  p: { email: string; password: string; userCode: string; approve?: boolean },
): Promise<FormResponse> {
  let page = await browser.get(`/device?user_code=${encodeURIComponent(p.userCode)}`);
  if (page.body.includes('action="/device/sign-in"')) {
    const signedIn = await browser.submit(page, '/device/sign-in', {
      email: p.email,
      password: p.password,
      user_code: p.userCode,
    });
    if (signedIn.status !== 303) throw new Error(`sign-in failed (${signedIn.status})`);
    page = await browser.get(signedIn.headers.get('location')!);
  }
  const code = /name="user_code"[^>]*value="([^"]*)"/.exec(page.body)?.[1] ?? p.userCode;
  const request = await browser.submit(page, '/device', { user_code: code });
  if (request.status !== 200) throw new Error(`the code was not accepted (${request.status})`);
  return browser.submit(request, '/device/decision', {
    user_code: p.userCode,
    decision: p.approve === false ? 'deny' : 'approve',
  });
}

/** `send` for a real server at `base`. */
export const fetchSend =
  (base: string): Send =>
  async (r) => {
    const res = await fetch(base + r.path, { method: r.method, headers: r.headers, body: r.body, redirect: 'manual' });
    return { status: res.status, headers: res.headers, body: await res.text() };
  };

/** `send` for an app, through inject. */
export const injectSend =
  (app: { inject(o: object): Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }> }): Send =>
  async (r) => {
    const res = await app.inject({
      method: r.method,
      url: r.path,
      headers: r.headers,
      ...(r.body !== undefined ? { payload: r.body } : {}),
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers))
      for (const one of [v].flat()) if (one !== undefined) headers.append(k, String(one));
    return { status: res.statusCode, headers, body: res.body };
  };

/** The request parameters the authorization page carries in its hidden fields. */
function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const unescape = (v: string) => v.replace(/&#(\d+);/g, (_x, n: string) => String.fromCharCode(Number(n)));
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    if (m[1] !== '_csrf') fields[m[1]] = unescape(m[2]);
  return fields;
}

/**
 * Opens an authorization URL (path and query of /oauth/authorize), signs in if asked and answers
 * the consent page as a person at a browser would. Returns the consent page and the answer: a
 * 303 whose Location goes back to the client (or the page itself when something was refused).
 */
export async function answerAuthorization(
  browser: FormBrowser,
  p: { path: string; email: string; password: string; decision?: 'allow' | 'deny' },
): Promise<{ consent: FormResponse; answer: FormResponse }> {
  let page = await browser.get(p.path);
  if (page.body.includes('action="/oauth/authorize/sign-in"')) {
    const signedIn = await browser.submit(page, '/oauth/authorize/sign-in', {
      ...hiddenFields(page.body),
      email: p.email,
      password: p.password,
    });
    if (signedIn.status !== 303) throw new Error(`sign-in failed (${signedIn.status})`);
    page = await browser.get(signedIn.headers.get('location')!);
  }
  if (page.status !== 200) return { consent: page, answer: page };
  const answer = await browser.submit(page, '/oauth/authorize', {
    ...hiddenFields(page.body),
    decision: p.decision ?? 'allow',
  });
  return { consent: page, answer };
}
