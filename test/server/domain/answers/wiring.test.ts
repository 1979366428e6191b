/** services.answers: the built-in answerer out of the box, the language model when an endpoint is configured. */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../server/config.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';

let app: TestApp | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

describe('answer engine wiring', () => {
  it('answers with the built-in answerer when no provider is configured', async () => {
    app = await buildTestApp();
    expect(app.app.services.answers.provider).toBe('built-in');
  });

  it('uses the OpenAI-compatible provider when an endpoint is configured', async () => {
    app = await buildTestApp({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(app.app.services.answers.provider).toBe('openai');
  });

  it('reads the model map and the timeout from the environment', () => {
    const env = { DATA_DIR: app?.dataDir ?? '/tmp/parley-config-test', SECRET_KEY: 'x'.repeat(32) };
    expect(loadConfig(env).answers).toEqual({
      models: { 'gpt-4.1': 'gpt-4.1', 'gpt-4.1-mini': 'gpt-4.1-mini' },
      timeoutMs: 30_000,
    });
    expect(
      loadConfig({
        ...env,
        OPENAI_MODEL_GPT_4_1: 'llama3.1:70b',
        OPENAI_MODEL_GPT_4_1_MINI: 'llama3.1:8b',
        ANSWER_TIMEOUT_MS: '5000',
      }).answers,
    ).toEqual({
      models: { 'gpt-4.1': 'llama3.1:70b', 'gpt-4.1-mini': 'llama3.1:8b' },
      timeoutMs: 5000,
    });
    expect(() => loadConfig({ ...env, ANSWER_TIMEOUT_MS: '5' })).toThrow(
      /ANSWER_TIMEOUT_MS must be a whole number from 100/,
    );
  });
});
