import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: run files in parallel forks, each with its own database.
    pool: 'forks',
    // The CLI and start-up tests run the compiled server; the widget's tests serve the built widget.
    globalSetup: ['test/server-build.setup.ts', 'test/widget-build.setup.ts'],
  },
});
