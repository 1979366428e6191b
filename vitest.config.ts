import { defineConfig } from 'vitest/config';

// Files that need a module graph of their own: the widget's DOM tests (happy-dom globals), a file
// that replaces a server module with vi.mock, and one that registers OpenTelemetry's global tracer
// and sets OTEL_* variables; either would leak into every later file of its fork.
const ISOLATED = [
  'test/widget/**/*.test.{ts,tsx}',
  'test/server/storage/sqlite-rank-fallback.test.ts',
  'test/server/observability/tracing.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Most of a file's time is spent waiting (on child servers, PostgreSQL, Chromium, stand-ins),
    // so more forks than the two cores keep both busy; vitest's default here would be one.
    maxWorkers: 4,
    pool: 'forks',
    // The CLI and start-up tests run the compiled server; the widget's tests serve the built widget.
    globalSetup: ['test/server-build.setup.ts', 'test/widget-build.setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ISOLATED,
          // A fork keeps its imported modules from file to file instead of loading the server
          // again for each one. Every file still builds its own apps and databases.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
    ],
  },
});
