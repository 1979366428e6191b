/**
 * The MCP server as agents use it: the SDK's own Client over streamable HTTP against a live app
 * (POST /mcp), and over stdio through the compiled CLI (`parley mcp`, relaying to the same app).
 * Knowledge is ingested for real through the tools, and the chatbot answers from it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { saveCredentials } from '../../../server/client/credentials.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const FACT =
  '# Shipping to Iceland\n\nParcels to Iceland leave our Reykjavik depot every Tuesday. Shipping to Iceland costs 19 euros per parcel, whatever its weight.';

let t: TestApp;
let base: string;
let full: string;
let chatbotId: string;
const clients: Client[] = [];

async function httpClient(token: string | null): Promise<Client> {
  const client = new Client({ name: 'parley-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
    }),
  );
  clients.push(client);
  return client;
}

/** A tool's JSON result, or its error body when it answered isError. */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text: string }[];
  };
  return { isError: result.isError === true, body: JSON.parse(result.content[0].text) };
}

/** Waits for an ingest job to end, reading it through the tool as an agent would. */
async function finished(client: Client, jobId: string) {
  return vi.waitFor(
    async () => {
      const { body } = await call(client, 'get_ingest_job', { chatbotId, jobId });
      if (['queued', 'running'].includes(body.job.status)) throw new Error(`job ${body.job.status}`);
      return body.job;
    },
    { timeout: 20_000, interval: 50 },
  );
}

let owner: Client;
beforeAll(async () => {
  t = await buildTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  full = (await t.token()).token;
  const made = await t.call('POST', '/api/v2/chatbots', full, { title: 'Shop help' });
  chatbotId = made.body.data.chatbot.id;
  owner = await httpClient(full);
  const added = await call(owner, 'add_text', { chatbotId, title: 'Shipping', text: FACT });
  expect(added.isError, JSON.stringify(added.body)).toBe(false);
  expect((await finished(owner, added.body.job.id)).status).toBe('succeeded');
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await t?.close();
});

describe('over streamable HTTP', () => {
  test('lists every tool with a description and the JSON schema of its route', async () => {
    const { tools } = await owner.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(
      [
        'add_links',
        'add_sitemap',
        'add_text',
        'add_website',
        'answer_knowledge_gap',
        'ask_chatbot',
        'get_analytics',
        'get_chatbot',
        'get_conversation',
        'get_ingest_job',
        'hand_back_conversation',
        'list_chatbots',
        'list_conversations',
        'list_knowledge_gaps',
        'list_leads',
        'reply_to_conversation',
        'resolve_conversation',
        'search_documents',
        'take_over_conversation',
      ].sort(),
    );
    const addText = tools.find((x) => x.name === 'add_text')!;
    // The route's own limits and required fields, not a copy.
    expect(addText.inputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['chatbotId', 'title', 'text']),
      properties: { title: { type: 'string', maxLength: 300 }, text: { type: 'string', maxLength: 500_000 } },
    });
    expect(addText.description).toContain('knowledge:write');
    const list = tools.find((x) => x.name === 'list_conversations')!;
    expect(Object.keys(list.inputSchema.properties!)).toEqual(
      expect.arrayContaining(['chatbotId', 'status', 'mode', 'escalated', 'from', 'to', 'cursor', 'limit']),
    );
    expect(list.inputSchema.required).toEqual(['chatbotId']);
    for (const x of tools) expect(x.description!.length).toBeGreaterThan(60);
  });

  test('list_chatbots and get_chatbot read the chatbots the token reaches', async () => {
    const listed = await call(owner, 'list_chatbots', {});
    expect(listed.body.chatbots.map((c: { id: string }) => c.id)).toEqual([chatbotId]);
    const one = await call(owner, 'get_chatbot', { chatbotId });
    expect(one.body.chatbot).toMatchObject({ id: chatbotId, title: 'Shop help' });
  });

  test('ask_chatbot answers from the ingested text, citing it; search_documents finds the passage', async () => {
    const asked = await call(owner, 'ask_chatbot', { chatbotId, message: 'How much does shipping to Iceland cost?' });
    expect(asked.isError, JSON.stringify(asked.body)).toBe(false);
    expect(asked.body.answer.text).toContain('19 euros');
    expect(asked.body.answer.sources[0]).toMatchObject({ title: 'Shipping' });
    // A follow-up in the same conversation.
    const again = await call(owner, 'ask_chatbot', {
      chatbotId,
      threadId: asked.body.threadId,
      message: 'On which day do parcels to Iceland leave?',
    });
    expect(again.body.threadId).toBe(asked.body.threadId);
    expect(again.body.answer.text).toContain('Tuesday');

    const found = await call(owner, 'search_documents', { chatbotId, q: 'Reykjavik depot' });
    expect(found.body.passages[0]).toMatchObject({ title: 'Shipping' });
    expect(found.body.passages[0].text).toContain('Reykjavik');
    // The route the tool stands for answers the same.
    const rest = await t.call(
      'GET',
      `/api/v2/chatbots/${chatbotId}/knowledge/search?q=Reykjavik%20depot&limit=3`,
      full,
    );
    expect(rest.body.data.passages).toEqual(found.body.passages.slice(0, 3));
  });

  test('the team side: list, read, take over, reply (the visitor sees it), hand back, resolve', async () => {
    const asked = await call(owner, 'ask_chatbot', { chatbotId, message: 'Do you ship to Iceland?' });
    const threadId = asked.body.threadId;
    const listed = await call(owner, 'list_conversations', { chatbotId, status: 'OPEN', limit: 100 });
    expect(listed.body.conversations.map((c: { threadId: string }) => c.threadId)).toContain(threadId);
    expect((await call(owner, 'list_conversations', { chatbotId, status: 'RESOLVED' })).body.conversations).toEqual([]);

    expect((await call(owner, 'take_over_conversation', { chatbotId, threadId })).body.conversation.mode).toBe('AGENT');
    const replied = await call(owner, 'reply_to_conversation', { chatbotId, threadId, message: 'Yes, every Tuesday!' });
    expect(replied.body.message).toMatchObject({ author: 'agent', text: 'Yes, every Tuesday!' });
    // The reply is in the conversation, as the REST API (and so the visitor's widget) reads it.
    const rest = await t.call('GET', `/api/v2/chatbots/${chatbotId}/conversations/${threadId}/messages`, full);
    expect(rest.body.data.messages.at(-1)).toMatchObject({ author: 'agent', text: 'Yes, every Tuesday!' });
    const read = await call(owner, 'get_conversation', { chatbotId, threadId });
    expect(read.body.conversation.threadId).toBe(threadId);
    expect(read.body.messages.map((m: { author: string }) => m.author)).toEqual(['visitor', 'ai', 'agent']);

    expect((await call(owner, 'hand_back_conversation', { chatbotId, threadId })).body.conversation.mode).toBe('AI');
    expect((await call(owner, 'resolve_conversation', { chatbotId, threadId })).body.conversation.status).toBe(
      'RESOLVED',
    );
  });

  test('knowledge gaps, leads and analytics', async () => {
    const asked = await call(owner, 'ask_chatbot', { chatbotId, message: 'Can I pay with a cheque from Jupiter?' });
    const gaps = await call(owner, 'list_knowledge_gaps', { chatbotId, answered: false });
    const gap = gaps.body.knowledgeGaps.find((g: { threadId: string }) => g.threadId === asked.body.threadId);
    expect(gap, JSON.stringify(gaps.body)).toBeDefined();

    const prompt = await owner.getPrompt({ name: 'draft_gap_answer', arguments: { chatbotId, gapId: gap.id } });
    const text = (prompt.messages[0].content as { text: string }).text;
    expect(text).toContain(gap.question);
    expect(text).toContain('answer_knowledge_gap');

    const answered = await call(owner, 'answer_knowledge_gap', {
      chatbotId,
      gapId: gap.id,
      answer: 'We take cards and bank transfers only.',
    });
    expect(answered.body.knowledgeGap.answered).toBe(true);
    expect(answered.body.customResponse.id).toBeTruthy();

    expect((await call(owner, 'list_leads', { chatbotId })).body).toMatchObject({ leads: [] });
    const figures = await call(owner, 'get_analytics', { chatbotId });
    expect(figures.body.analytics.conversations).toBeGreaterThanOrEqual(3);
  });

  test("the escalations prompt holds today's escalated conversations and their messages", async () => {
    const asked = await call(owner, 'ask_chatbot', { chatbotId, message: 'My Iceland parcel is lost, help' });
    const threadId = asked.body.threadId;
    const escalated = await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations/${threadId}/escalate`, full);
    expect(escalated.status).toBe(200);
    const { prompts } = await owner.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['draft_gap_answer', 'summarise_escalations']);
    const prompt = await owner.getPrompt({ name: 'summarise_escalations', arguments: { chatbotId } });
    const text = (prompt.messages[0].content as { text: string }).text;
    expect(text).toContain(threadId);
    expect(text).toContain('My Iceland parcel is lost, help');
    expect(text).not.toContain('Do you ship to Iceland?');
  });

  test("resources: a chatbot's settings and its documents", async () => {
    const { resources } = await owner.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      `parley://chatbots/${chatbotId}/settings`,
      `parley://chatbots/${chatbotId}/documents`,
    ]);
    const { resourceTemplates } = await owner.listResourceTemplates();
    expect(resourceTemplates).toHaveLength(2);
    const settings = await owner.readResource({ uri: `parley://chatbots/${chatbotId}/settings` });
    expect(JSON.parse((settings.contents[0] as { text: string }).text).settings.title).toBe('Shop help');
    const docs = await owner.readResource({ uri: `parley://chatbots/${chatbotId}/documents` });
    const documents = JSON.parse((docs.contents[0] as { text: string }).text).documents;
    expect(documents.map((d: { title: string; status: string }) => [d.title, d.status])).toEqual([
      ['Shipping', 'indexed'],
    ]);
  });

  test('a token without the scope gets a tool error naming it, and nothing changes', async () => {
    const { token } = await t.token({ access: 'custom', scopes: ['chatbots:read'] });
    const reader = await httpClient(token);
    expect((await call(reader, 'list_chatbots', {})).body.chatbots).toHaveLength(1);
    const refused = await call(reader, 'add_text', { chatbotId, title: 'Nope', text: 'Should not be stored' });
    expect(refused.isError).toBe(true);
    expect(refused.body.error).toMatchObject({
      code: 'TOKEN_SCOPE_NOT_ALLOWED',
      details: { missingScopes: ['knowledge:write'] },
    });
    const resource = reader.readResource({ uri: `parley://chatbots/${chatbotId}/documents` });
    await expect(resource).rejects.toThrow(/knowledge:read/);
    const jobs = await t.call('GET', `/api/v2/chatbots/${chatbotId}/ingest-jobs`, full);
    expect(jobs.body.data.jobs).toHaveLength(1);
  });

  test("another account's chatbot is not found, through tools and resources", async () => {
    const other = await t.app.services.accounts.create('someone@else.test');
    const { token } = await t.token({}, other.account.id);
    const stranger = await httpClient(token);
    expect((await call(stranger, 'list_chatbots', {})).body.chatbots).toEqual([]);
    for (const [name, args] of [
      ['get_chatbot', { chatbotId }],
      ['ask_chatbot', { chatbotId, message: 'How much is shipping to Iceland?' }],
      ['search_documents', { chatbotId, q: 'Iceland' }],
    ] as const) {
      const refused = await call(stranger, name, args);
      expect(refused.isError, name).toBe(true);
      expect(refused.body.error.code, name).toBe('CHATBOT_NOT_FOUND');
    }
    await expect(stranger.readResource({ uri: `parley://chatbots/${chatbotId}/settings` })).rejects.toThrow(
      /not found/i,
    );
  });

  test('bad arguments are a tool error in the envelope shape; an unknown tool is a protocol error', async () => {
    const bad = await call(owner, 'add_links', { chatbotId, urls: [] });
    expect(bad.isError).toBe(true);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    expect(bad.body.error.details[0].path).toEqual(['urls']);
    const extra = await call(owner, 'get_chatbot', { chatbotId, surprise: 1 });
    expect(extra.body.error.details[0]).toMatchObject({ path: ['surprise'] });
    await expect(owner.callTool({ name: 'drop_tables', arguments: {} })).rejects.toThrow(/no tool drop_tables/);
    for (const uri of [
      'parley://chatbots/%ZZ/settings',
      `parley://chatbots/${chatbotId}/secrets`,
      'https://example.com',
    ])
      await expect(owner.readResource({ uri }), uri).rejects.toThrow(/There is no resource/);
    // Not JSON-RPC at all: the transport's 400, not a failure of ours.
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${full}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"hello":"world"}',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(-32700);
  });

  test('a request from a web page of another site is refused (DNS rebinding); one of this site passes', async () => {
    const post = (origin: string) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          origin,
          authorization: `Bearer ${full}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const refused = await post('http://evil.example');
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('ORIGIN_NOT_ALLOWED');
    const own = await post(new URL(t.config.siteUrl).origin);
    expect(own.status).toBe(200);
    expect((await own.json()).result.tools).toHaveLength(19);
  });

  test('without a valid token: 401 naming the /mcp protected resource metadata, which names /mcp', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const authorization of [undefined, 'Bearer not-a-token']) {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { ...headers, ...(authorization && { authorization }) },
        body: JSON.stringify(init),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${t.config.siteUrl}/.well-known/oauth-protected-resource/mcp"`,
      );
    }
    const metadata = await t.call('GET', '/.well-known/oauth-protected-resource/mcp');
    expect(metadata.body).toMatchObject({
      resource: `${t.config.siteUrl}/mcp`,
      authorization_servers: [t.config.siteUrl],
    });
    await expect(httpClient('revoked-or-unknown')).rejects.toThrow(/TOKEN_NOT_VALID/);
  });
});

// Each test starts the CLI as a child process (two in the first): slow under four forks, not stuck.
describe('over stdio (parley mcp, the compiled CLI)', { timeout: 90_000 }, () => {
  const home = mkdtempSync(join(tmpdir(), 'parley-mcp-home-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  async function stdioClient(env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'dist/server/cli.js'), 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config'), ...env },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += d));
    const client = new Client({ name: 'desktop-agent', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return { client, stderr: () => stderr };
  }

  test('relays to the server: tools, a real answer, a reply, and the missing-scope error', async () => {
    const { client } = await stdioClient({ PARLEY_SERVER: base, PARLEY_TOKEN: full });
    expect(client.getServerVersion()).toMatchObject({ name: 'parley' });
    expect((await client.listTools()).tools).toHaveLength(19);
    const asked = await call(client, 'ask_chatbot', { chatbotId, message: 'What does shipping to Iceland cost?' });
    expect(asked.body.answer.text).toContain('19 euros');
    const replied = await call(client, 'reply_to_conversation', {
      chatbotId,
      threadId: asked.body.threadId,
      message: 'Hello from the desktop',
    });
    expect(replied.isError).toBe(false);
    const rest = await t.call(
      'GET',
      `/api/v2/chatbots/${chatbotId}/conversations/${asked.body.threadId}/messages`,
      full,
    );
    expect(rest.body.data.messages.at(-1)).toMatchObject({ author: 'agent', text: 'Hello from the desktop' });

    const { token } = await t.token({ access: 'custom', scopes: ['chatbots:read'] });
    const { client: reader } = await stdioClient({ PARLEY_SERVER: base, PARLEY_TOKEN: token });
    const refused = await call(reader, 'reply_to_conversation', {
      chatbotId,
      threadId: asked.body.threadId,
      message: 'Nope',
    });
    expect(refused.isError).toBe(true);
    expect(refused.body.error.code).toBe('TOKEN_SCOPE_NOT_ALLOWED');
  });

  test('after parley login it needs no environment: the stored server and token; without a token it says how to get one', async () => {
    saveCredentials(join(home, 'config', 'parley'), {
      server: base,
      accessToken: full,
      scope: 'chatbots:read',
      savedAt: new Date().toISOString(),
    });
    const { client } = await stdioClient({});
    expect((await call(client, 'list_chatbots', {})).body.chatbots[0].id).toBe(chatbotId);

    // The stored token is for the stored server only.
    const other = 'http://127.0.0.1:9';
    const run = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'dist/server/cli.js'), 'mcp', '--server', other],
      {
        env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config') },
      },
    ).catch((err: { code: number; stdout: string; stderr: string }) => err);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain(`No token for ${other}: set PARLEY_TOKEN`);
  });

  test('a line that is not JSON-RPC is reported on stderr and skipped; stdout carries only the protocol', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/server/cli.js'), 'mcp'], {
      env: { PATH: process.env.PATH ?? '', HOME: home, PARLEY_SERVER: base, PARLEY_TOKEN: full },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const firstLine = new Promise<string>((resolve) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out);
      });
    });
    child.stdin.write('this is not json\n');
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' })}\n`);
    const out = await firstLine;
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    expect(
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).id),
    ).toEqual([7]);
    expect(JSON.parse(out.split('\n')[0]).result.tools).toHaveLength(19);
    expect(stderr).toContain('Ignored a message from the agent');
  });

  test('a revoked token: the agent is told why, in the error of its request', async () => {
    const { token, id } = await t.token({ access: 'standard' });
    const account = await t.app.services.accounts.resolve();
    await t.app.services.tokens.revokeAsOperator(account.id, id);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'dist/server/cli.js'), 'mcp', '--server', base],
      env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config'), PARLEY_TOKEN: token },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'desktop-agent', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toThrow(/refused the token \(401\)/);
    await transport.close();
  });
});

describe("the README's MCP examples, as written", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### MCP server for AI agents'));
  const block = (lang: string) => new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(section)![1];
  /** The README's placeholders filled in for this test's server, token and checkout. */
  const fill = (text: string) =>
    text
      .replaceAll('/path/to/parley', ROOT.replace(/\/$/, ''))
      .replaceAll('https://chat.example.com', base)
      .replaceAll('<your token>', full);

  test('the Claude Desktop configuration starts a working server', async () => {
    const config = JSON.parse(fill(block('json'))).mcpServers.parley;
    const client = new Client({ name: 'claude-desktop-alike', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ ...config, stderr: 'pipe' }));
    clients.push(client);
    expect((await call(client, 'list_chatbots', {})).body.chatbots[0].id).toBe(chatbotId);
  });

  test('the curl call answers with the tool result', async () => {
    // Not execFileSync: the server answering curl runs in this process.
    const { stdout } = await promisify(execFile)('bash', ['-c', fill(block('bash'))], {
      env: { ...process.env, PARLEY_TOKEN: full },
    });
    const reply = JSON.parse(stdout);
    expect(JSON.parse(reply.result.content[0].text).chatbots[0].id).toBe(chatbotId);
  });

  test('the table lists every tool with the scope it needs', async () => {
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \|.*\| `([a-z]+:[a-z]+)` \|$/gm)].map(([, name, scope]) => [
      name,
      scope,
    ]);
    const { tools } = await owner.listTools();
    expect(rows.sort()).toEqual(
      tools.map((x) => [x.name, /Needs the scope ([a-z]+:[a-z]+)\.$/.exec(x.description!)![1]]).sort(),
    );
  });
});
