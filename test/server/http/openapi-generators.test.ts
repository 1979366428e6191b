/**
 * The OpenAPI documents as third-party tools use them: openapi-typescript generates types from the
 * live app's document, a small openapi-fetch client using those types type-checks with no error
 * (required fields are not optional) and runs against the app on a real port, and @redocly/cli
 * lints both documents with its recommended rules to 0 errors and 0 warnings.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { typecheck } from '../../helpers/typecheck.js';

let t: TestApp;
let base: string;
let dir: string;
beforeAll(async () => {
  t = await buildTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  dir = mkdtempSync(join(tmpdir(), 'parley-openapi-'));
  // The client resolves openapi-fetch from the project, as an SDK user's project would from its own.
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
  const doc = await (await fetch(`${base}/api/v2/openapi.json`)).json();
  writeFileSync(join(dir, 'v2.json'), JSON.stringify(doc));
  writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(doc)));
  writeFileSync(join(dir, 'v0.yaml'), await (await fetch(`${base}/openapi.yaml`)).text());
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

/**
 * Five calls, each reading fields the document marks required into non-optional variables: with
 * every field optional (the document without `required`) this has a type error per assignment.
 */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths, components } from './api.js';

type Chatbot = components['schemas']['Chatbot'];

export async function run(baseUrl: string, token: string) {
  const api = createClient<paths>({ baseUrl: baseUrl + '/api/v2', headers: { authorization: 'Bearer ' + token } });

  const created = await api.POST('/chatbots', { body: { title: 'Generated client' } });
  if (!created.data) throw new Error('createChatbot: ' + JSON.stringify(created.error));
  const chatbot: Chatbot = created.data.data.chatbot;
  const id: string = chatbot.id;
  const createdAt: string = chatbot.createdAt;
  const mode: string | null = chatbot.settings.mode;

  const listed = await api.GET('/chatbots', { params: { query: { limit: 10 } } });
  if (!listed.data) throw new Error('listChatbots');
  const titles: string[] = listed.data.data.chatbots.map((c) => c.title);
  const hasNextPage: boolean = listed.data.data.pagination.hasNextPage;

  const one = await api.GET('/chatbots/{chatbotId}', { params: { path: { chatbotId: id } } });
  if (!one.data) throw new Error('getChatbot');
  const requestId: string = one.data.meta.requestId;

  const started = await api.POST('/chatbots/{chatbotId}/messages', {
    params: { path: { chatbotId: id } },
    body: { message: 'Hello there' },
  });
  if (!started.data) throw new Error('startConversation: ' + JSON.stringify(started.error));
  const threadId: string = started.data.data.conversation.threadId;
  const status: 'OPEN' | 'RESOLVED' = started.data.data.conversation.status;

  const messages = await api.GET('/chatbots/{chatbotId}/conversations/{threadId}/messages', {
    params: { path: { chatbotId: id, threadId } },
  });
  if (!messages.data) throw new Error('listConversationMessages');
  const texts: string[] = messages.data.data.messages.map((m) => m.text);
  const authors: Array<'visitor' | 'ai' | 'agent' | 'system'> = messages.data.data.messages.map((m) => m.author);

  const missing = await api.GET('/chatbots/{chatbotId}', { params: { path: { chatbotId: 'nope' } } });
  const code: string | undefined = missing.error?.error.code;

  return { id, createdAt, mode, titles, hasNextPage, requestId, threadId, status, texts, authors, code };
}
`;

test('openapi-typescript types from the live document type-check a five-call openapi-fetch client, which runs against the app', async () => {
  const file = join(dir, 'client.ts');
  writeFileSync(file, CLIENT);
  const { errors } = typecheck([file], { types: [], lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'] });
  expect(errors).toEqual([]);

  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const { run } = await import(/* @vite-ignore */ pathToFileURL(file).href);
  const { token } = await t.token();
  const result = await run(base, token);
  expect(result).toMatchObject({ status: 'OPEN', hasNextPage: false, code: 'CHATBOT_NOT_FOUND' });
  expect(result.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  expect(result.titles).toContain('Generated client');
  expect(result.texts[0]).toBe('Hello there');
  expect(result.authors[0]).toBe('visitor');
});

test('the generated types make required response fields non-optional and name the shared shapes', async () => {
  const types = await import('node:fs').then((fs) => fs.readFileSync(join(dir, 'api.d.ts'), 'utf8'));
  for (const name of ['Chatbot', 'Settings', 'Conversation', 'Message', 'Job', 'ErrorEnvelope'])
    expect(types).toMatch(new RegExp(`\\b${name}: \\{`));
  // One operation per name in `operations`, e.g. listChatbots.
  for (const id of ['listChatbots', 'getChatbot', 'createChatbot', 'startConversation', 'requestToken'])
    expect(types).toContain(`${id}: {`);
  expect(types).toMatch(/\n {8}Chatbot: \{\n(?: {12}.*\n)*? {12}id: string;/);
});

const redocly = async (file: string) => {
  const cli = resolve('node_modules/@redocly/cli/bin/cli.js');
  // The CLI exits non-zero on errors only; the JSON report counts warnings too.
  const out = await promisify(execFile)(
    process.execPath,
    [cli, 'lint', file, '--format=json', '--extends=recommended'],
    {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    },
  ).catch((err: { stdout: string }) => err);
  const report = JSON.parse(out.stdout) as {
    totals: { errors: number; warnings: number };
    problems: Array<{ ruleId: string; message: string }>;
  };
  return { totals: report.totals, problems: report.problems.slice(0, 5).map((p) => `${p.ruleId}: ${p.message}`) };
};

test('@redocly/cli lint (recommended): the v2 document has 0 errors and 0 warnings', async () => {
  expect(await redocly('v2.json')).toEqual({
    totals: expect.objectContaining({ errors: 0, warnings: 0 }),
    problems: [],
  });
});

test('@redocly/cli lint (recommended): the legacy document has 0 errors and 0 warnings', async () => {
  expect(await redocly('v0.yaml')).toEqual({
    totals: expect.objectContaining({ errors: 0, warnings: 0 }),
    problems: [],
  });
});
