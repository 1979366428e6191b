/**
 * Builds the widget into dist/widget: the chat chunks first (ES modules, content-hashed, in
 * chunks/), then widget.js, a classic script (IIFE) that knows the chat entry's hashed name and
 * `import()`s it on intent; the demo playground (demo/ -> dist/demo) and the console (console/ ->
 * dist/console). `--watch` rebuilds on
 * change (npm run dev:widget).
 */
import preact from '@preact/preset-vite';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { widgetIsStale } from '../scripts/stale.mjs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
export const WIDGET_DIST = join(here, '..', 'dist', 'widget');
const watch = process.argv.includes('--watch');

async function buildLoader(appFile: string) {
  await build({
    configFile: false,
    root: here,
    logLevel: 'warn',
    plugins: [preact({ prefreshEnabled: false, devToolsEnabled: false })],
    define: { __PARLEY_APP__: JSON.stringify(`widget/${appFile}`) },
    build: {
      outDir: WIDGET_DIST,
      emptyOutDir: false,
      target: 'es2020',
      lib: {
        entry: join(here, 'loader', 'index.ts'),
        formats: ['iife'],
        name: 'parleyWidget',
        fileName: () => 'widget.js',
      },
    },
  });
}

/** After each chat build, widget.js is rebuilt with the new entry name. */
function loaderAfterApp(): Plugin {
  return {
    name: 'parley-loader',
    async writeBundle(_options, bundle) {
      const entry = Object.values(bundle).find((c) => c.type === 'chunk' && c.isEntry);
      if (entry) await buildLoader(entry.fileName);
      compressAll();
    },
  };
}

/** Brotli and gzip copies beside every file, so the server sends them without compressing per request. */
function compressAll() {
  for (const dir of [WIDGET_DIST, join(WIDGET_DIST, 'chunks')]) compressDir(dir);
}

function compressDir(dir: string) {
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.js') && !name.endsWith('.css')) continue;
    const bytes = readFileSync(join(dir, name));
    writeFileSync(
      join(dir, `${name}.br`),
      brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
    writeFileSync(join(dir, `${name}.gz`), gzipSync(bytes, { level: 9 }));
  }
}

export const DEMO_DIST = join(here, '..', 'dist', 'demo');

/** The theming playground and agent console (demo/), served at /demo. */
async function buildDemo(watchIt: boolean) {
  await build({
    configFile: false,
    root: join(here, '..', 'demo'),
    base: '/demo/',
    logLevel: 'warn',
    plugins: [preact({ prefreshEnabled: false, devToolsEnabled: false })],
    build: { outDir: DEMO_DIST, emptyOutDir: true, target: 'es2020', modulePreload: false, watch: watchIt ? {} : null },
  });
}

export const CONSOLE_DIST = join(here, '..', 'dist', 'console');

/** The owner's console (console/), served at /console: one lazy chunk per page, compressed like the widget's. */
async function buildConsole(watchIt: boolean) {
  await build({
    configFile: false,
    root: join(here, '..', 'console'),
    base: '/console/',
    logLevel: 'warn',
    plugins: [
      preact({ prefreshEnabled: false, devToolsEnabled: false }),
      { name: 'parley-console-compress', writeBundle: () => compressDir(join(CONSOLE_DIST, 'assets')) },
    ],
    build: {
      outDir: CONSOLE_DIST,
      emptyOutDir: true,
      target: 'es2020',
      modulePreload: false,
      // .vite/manifest.json: which chunk is which page (the budget test reads it; never served).
      manifest: true,
      watch: watchIt ? {} : null,
    },
  });
}

export async function buildWidget(options: { watch?: boolean } = {}) {
  rmSync(WIDGET_DIST, { recursive: true, force: true });
  await buildDemo(!!options.watch);
  await buildConsole(!!options.watch);
  await build({
    configFile: false,
    root: here,
    base: './',
    logLevel: 'warn',
    plugins: [preact({ prefreshEnabled: false, devToolsEnabled: false }), loaderAfterApp()],
    build: {
      outDir: join(WIDGET_DIST, 'chunks'),
      emptyOutDir: true,
      target: 'es2020',
      modulePreload: false,
      watch: options.watch ? {} : null,
      rollupOptions: {
        input: join(here, 'app.tsx'),
        preserveEntrySignatures: 'strict',
        output: { format: 'es', entryFileNames: 'app-[hash].js', chunkFileNames: '[name]-[hash].js' },
      },
    },
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--if-stale') && !widgetIsStale()) process.exit(0);
  await buildWidget({ watch });
}
