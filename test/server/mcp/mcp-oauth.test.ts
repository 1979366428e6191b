/**
 * An MCP client signing in on its own, as Claude- or Cursor-style clients do: the SDK's Client over
 * streamable HTTP with an OAuthClientProvider and no token meets /mcp's 401, follows the metadata
 * (RFC 9728, then RFC 8414), registers itself (RFC 7591) and sends the user to the authorization
 * page. The test plays the user through the page's forms as a browser would, hands the code from
 * the redirect back to the transport, and the client then lists tools and calls them with the
 * token it got. A member without a chatbot signs in the same way and finds no chatbot there.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { answerAuthorization, fetchSend, FormBrowser } from '../../helpers/browser-form.js';
import { listenWithOwnerAndMember } from '../../helpers/sign-in-site.js';

const OWNER = 'boss@example.com';
const MEMBER = 'member@example.com';
const PASSWORD = 'correct horse battery staple';
/** Where the client listens for the browser to come back (never contacted: the test reads the redirect). */
const CALLBACK = 'http://127.0.0.1:33418/callback';

/** An MCP client's keeping of its registration, tokens and PKCE verifier, in memory. */
class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly expectedState = `state-${Math.random().toString(36).slice(2)}`;
  get redirectUrl() {
    return CALLBACK;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Desk agent',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return this.expectedState;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let t: TestApp;
let site: string;
let chatbotId: string;
const clients: Client[] = [];

/** Connects as an MCP client with no token, signs in as `email` through the page, and connects again. */
async function signInAndConnect(email: string) {
  const provider = new MemoryProvider();
  const first = new Client({ name: 'desk-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${site}/mcp`), { authProvider: provider });
  await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

  // Discovery and registration happened: the client is sent to the authorization page.
  const url = provider.authorizationUrl!;
  expect(`${url.origin}${url.pathname}`).toBe(`${site}/oauth/authorize`);
  expect(url.searchParams.get('resource')).toBe(`${site}/mcp`);
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  expect(provider.info?.client_id).toMatch(/^mcp_/);

  const { consent, answer } = await answerAuthorization(new FormBrowser(fetchSend(site)), {
    path: `${url.pathname}${url.search}`,
    email,
    password: PASSWORD,
  });
  expect(consent.body).toContain('Desk agent asks for access');
  expect(consent.body).toContain('you go back to 127.0.0.1:33418');
  const back = new URL(answer.headers.get('location')!);
  expect(back.searchParams.get('state')).toBe(provider.expectedState);
  await transport.finishAuth(back.searchParams.get('code')!);
  expect(provider.saved?.access_token).toEqual(expect.any(String));

  const client = new Client({ name: 'desk-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${site}/mcp`), { authProvider: provider }));
  clients.push(client);
  return { client, provider };
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text: string }[];
  };
  return { isError: result.isError === true, body: JSON.parse(result.content[0].text) };
}

beforeAll(async () => {
  ({ t, site } = await listenWithOwnerAndMember({ owner: OWNER, member: MEMBER, password: PASSWORD }));
  const made = await t.call('POST', '/api/v2/chatbots', (await t.token()).token, { title: 'Shop help' });
  chatbotId = made.body.data.chatbot.id;
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await t?.close();
});

test('the SDK client with no token registers, is sent through the authorization page, and then uses the tools', async () => {
  const { client, provider } = await signInAndConnect(OWNER);
  const { tools } = await client.listTools();
  expect(tools.map((x) => x.name)).toEqual(expect.arrayContaining(['list_chatbots', 'get_chatbot', 'ask_chatbot']));
  const listed = await call(client, 'list_chatbots', {});
  expect(listed.isError, JSON.stringify(listed.body)).toBe(false);
  expect(listed.body.chatbots.map((c: { id: string }) => c.id)).toEqual([chatbotId]);
  const one = await call(client, 'get_chatbot', { chatbotId });
  expect(one.body.chatbot).toMatchObject({ id: chatbotId, title: 'Shop help' });

  // The token is an ordinary API token of the owner, named after the client, usable on /api/v2 too.
  const me = await t.call('GET', '/api/v2/me', provider.saved!.access_token);
  expect(me.body.data.user.email).toBe(OWNER);
  const tokens = await t.call('GET', '/api/v2/tokens', (await t.token()).token);
  expect(tokens.body.data.tokens.map((x: { name: string }) => x.name)).toContain('Desk agent (OAuth sign-in)');
});

test("a member without a chatbot signs in the same way: the owner's chatbot is not found, and none is listed", async () => {
  const { client } = await signInAndConnect(MEMBER);
  const listed = await call(client, 'list_chatbots', {});
  expect(listed.body.chatbots).toEqual([]);
  const one = await call(client, 'get_chatbot', { chatbotId });
  expect(one.isError).toBe(true);
  expect(one.body.error.code).toMatch(/NOT_FOUND/);
});
