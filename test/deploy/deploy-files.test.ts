/**
 * The files operators deploy with, checked by the tools that read them where they run here:
 * compose.yaml by `docker-compose config` (Compose's own parser and interpolation; .ci/run installs
 * Debian's docker-compose), deploy/parley.service by `systemd-analyze verify` and its offline
 * security score, and the Dockerfile's promises (read from the file: no image can be built or
 * pulled on this machine; docs/deploy.md says how the final stage was run by hand).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const inCi = process.env.CI === 'true';
const compose = has('docker-compose');
const systemd = has('systemd-analyze');

const SECRET = 'a'.repeat(64);
function composeConfig(env: Record<string, string>) {
  const run = spawnSync('docker-compose', ['-f', join(ROOT, 'compose.yaml'), 'config'], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    encoding: 'utf8',
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

test('CI has the checkers', () => {
  if (inCi) expect({ compose, systemd }).toEqual({ compose: true, systemd: true });
});

test.runIf(compose || inCi)(
  'compose.yaml: PostgreSQL, Redis, the two instances nginx.conf names, nginx with that file',
  () => {
    const { code, out, err } = composeConfig({ POSTGRES_PASSWORD: 'pw', PARLEY_SECRET_KEY: SECRET });
    expect(err).toBe('');
    expect(code).toBe(0);
    const config = parse(out) as {
      services: Record<string, { environment?: Record<string, string>; volumes?: string[]; depends_on?: object }>;
    };
    expect(Object.keys(config.services).sort()).toEqual(['nginx', 'parley-a', 'parley-b', 'postgres', 'redis']);
    // nginx runs the tested config, and its upstream is exactly the instances compose starts.
    expect(config.services.nginx.volumes).toContain(
      `${join(ROOT, 'deploy/nginx.conf')}:/etc/nginx/conf.d/default.conf:ro`,
    );
    const upstream = [
      ...readFileSync(join(ROOT, 'deploy/nginx.conf'), 'utf8').matchAll(/^\s*server\s+([\w-]+):3000\b/gm),
    ].map((m) => m[1]);
    expect(upstream.sort()).toEqual(['parley-a', 'parley-b']);
    // Both instances share the database, Redis and the secret key, and trust exactly one proxy.
    const a = config.services['parley-a'].environment!;
    const b = config.services['parley-b'].environment!;
    expect(a).toEqual(b);
    expect(a).toMatchObject({
      DATABASE_URL: 'postgres://parley:pw@postgres:5432/parley',
      REDIS_URL: 'redis://redis:6379',
      SECRET_KEY: SECRET,
      TRUST_PROXY: '1',
    });
    expect(config.services['parley-a'].depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    // Each instance keeps its own data volume.
    expect(config.services['parley-a'].volumes).not.toEqual(config.services['parley-b'].volumes);
  },
);

test.runIf(compose || inCi)('compose.yaml refuses to start without its secrets, naming the one missing', () => {
  const noKey = composeConfig({ POSTGRES_PASSWORD: 'pw' });
  expect(noKey.code).not.toBe(0);
  expect(noKey.err).toMatch(/PARLEY_SECRET_KEY/);
  const noPassword = composeConfig({ PARLEY_SECRET_KEY: SECRET });
  expect(noPassword.code).not.toBe(0);
  expect(noPassword.err).toMatch(/POSTGRES_PASSWORD/);
});

test.runIf(systemd || inCi)('deploy/parley.service verifies cleanly and is hardened (exposure at most 2.0)', () => {
  const unit = join(ROOT, 'deploy/parley.service');
  const verify = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
  // Unknown or misspelt keys are only warnings: any output fails.
  expect(verify.stderr + verify.stdout).toBe('');
  expect(verify.status).toBe(0);
  const security = spawnSync('systemd-analyze', ['security', '--offline=true', '--threshold=20', unit], {
    encoding: 'utf8',
  });
  expect(security.stdout).toMatch(
    /Overall exposure level for parley\.service: [01]\.\d|Overall exposure level for parley\.service: 2\.0/,
  );
  expect(security.status).toBe(0);
  const text = readFileSync(unit, 'utf8');
  expect(text).toMatch(/^ExecStart=\/usr\/bin\/node .*\/dist\/server\/main\.js$/m);
  expect(text).toMatch(/^User=parley$/m);
  expect(text).toMatch(/^KillSignal=SIGTERM$/m);
});

test('the Dockerfile: two stages, npm ci --omit=dev in the final one, a non-root user, a volume, HEALTHCHECK on /healthz', () => {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));
  const stages = lines.map((l, i) => [l, i] as const).filter(([l]) => /^FROM\s/.test(l));
  expect(stages.length).toBe(2);
  expect(stages[0][0]).toMatch(/\sAS build$/);
  const final = lines.slice(stages[1][1]);
  expect(final.some((l) => /^RUN npm ci --omit=dev\b/.test(l))).toBe(true);
  // No compiler in the final image: only files copied from the build stage.
  expect(final.join('\n')).not.toMatch(/apt-get install/);
  expect(final.filter((l) => /^COPY --from=build /.test(l)).length).toBeGreaterThanOrEqual(3);
  const user = final.find((l) => /^USER /.test(l));
  expect(user).toBeDefined();
  expect(user).not.toMatch(/\broot\b|\s0$/);
  expect(final).toContain('VOLUME ["/data"]');
  expect(final.find((l) => l.startsWith('ENV '))).toMatch(/DATA_DIR=\/data/);
  expect(final.find((l) => l.startsWith('HEALTHCHECK '))).toMatch(/\/healthz/);
  expect(final.at(-1)).toBe('CMD ["node", "--enable-source-maps", "dist/server/main.js"]');
  // Everything the final stage copies from the build stage exists after a build here.
  for (const l of final.filter((x) => x.startsWith('COPY --from=build '))) {
    const from = l.split(/\s+/)[2].replace(/^\/app\//, '');
    expect(spawnSync('test', ['-e', join(ROOT, from)]).status, from).toBe(0);
  }
});
