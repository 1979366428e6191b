/**
 * The read-only connection that answers per-request lookups must never serve a stale row: a
 * commit by any other connection (this process's writer, the CLI, another process) is seen by
 * the very next request, and uncommitted work never is.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let token: string;
let id: string;
let other: Database.Database;

beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  id = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Before' })).body.data.chatbot.id;
  // A second process's connection, as the operator CLI has.
  other = new Database(join(t.dataDir, 'test.db'));
});
afterAll(async () => {
  other.close();
  await t.close();
});

const title = async () => (await t.call('GET', `/api/v2/chatbots/${id}`, token)).body.data.chatbot.title;

test('a commit by another connection is seen by the next request', async () => {
  expect(await title()).toBe('Before');
  expect(await title()).toBe('Before'); // now answered from the remembered row
  other.prepare('update chatbots set title = ? where id = ?').run('After', id);
  expect(await title()).toBe('After');
});

test('uncommitted work of another connection is never seen; its commit is', async () => {
  other.exec('begin immediate');
  other.prepare('update chatbots set title = ? where id = ?').run('Pending', id);
  expect(await title()).toBe('After');
  other.exec('commit');
  expect(await title()).toBe('Pending');
});

test('a token revoked by another connection stops working on the next request', async () => {
  const { token: doomed, id: tokenId } = await t.token();
  expect((await t.call('GET', '/api/v2/me', doomed)).status).toBe(200);
  other.prepare('update tokens set revoked_at = ? where id = ?').run(new Date().toISOString(), tokenId);
  const res = await t.call('GET', '/api/v2/me', doomed);
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('TOKEN_NOT_VALID');
});
