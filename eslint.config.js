// `npm run lint`. typescript-eslint's recommended rules (syntax only: no type information, so a
// run takes seconds) plus the layer rules of shared/ARCHITECTURE.md as import restrictions.
// test/server/lint-boundaries.test.ts proves each layer rule refuses what it must.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const viaOutbound = 'Outbound HTTP goes through GuardedHttpClient (server/outbound): the SSRF guard and the limits.';
const NOT_TRANSPORT = 'Widget components read state models and call actions; they never touch the socket or fetch.';

/** Packages a layer may not import: a regular expression over the specifier, and why. */
const packages = (names, message) => ({ regex: `^(${names.join('|')})(/|$)`, message });
const HTTP_CLIENTS = packages(['undici', 'axios', 'got', 'node-fetch', 'ky', 'superagent'], viaOutbound);
const DRIVERS = packages(
  ['fastify', 'fastify-plugin', '@fastify/[^/]+', 'kysely', 'pg', 'better-sqlite3', 'sqlite-vec', 'ws', 'ioredis'],
  "server/domain/ holds the product's rules only: frameworks and drivers live in adapters/, storage/, outbound/ and reach it through its ports.",
);
const NODE_BUILTINS = { regex: '^node:', message: 'The widget runs in a browser.' };

/**
 * The relative specifiers that lead from a file `depth` folders deep under `layer` into the
 * project folder `target`: exact, so server/domain/widget/ is not the top-level widget/.
 */
function leadsInto(layer, depth, target) {
  const parts = layer.split('/');
  const ways = [];
  for (let kept = 0; kept <= parts.length; kept++) {
    const base = parts.slice(0, kept).join('/');
    if (base && target !== base && !target.startsWith(`${base}/`)) continue;
    const rest = base ? target.slice(base.length + 1) : target;
    const up = depth - kept;
    if (rest) ways.push(`${up ? `(\\.\\./){${up}}` : '\\./'}(${rest})`);
  }
  return `^(${ways.join('|')})(/|$)`;
}

/** The node:http(s) client, by name or as `http.request(…)`; and the global fetch. */
const NODE_HTTP_CLIENT = ['http', 'https', 'node:http', 'node:https'].map((name) => ({
  name,
  importNames: ['request', 'get', 'Agent', 'ClientRequest'],
  message: viaOutbound,
}));
const NO_OWN_HTTP = {
  'no-restricted-globals': ['error', { name: 'fetch', message: viaOutbound }],
  'no-restricted-properties': [
    'error',
    { object: 'globalThis', property: 'fetch', message: viaOutbound },
    ...['http', 'https'].flatMap((object) =>
      ['request', 'get'].map((property) => ({ object, property, message: viaOutbound })),
    ),
  ],
};

/**
 * One config block per folder depth under `layer`, refusing imports of `pkgs` and of the project
 * folders in `folders` ({ target: message }): static imports and re-exports (type-only too) by
 * no-restricted-imports, `import()` and `require()` by no-restricted-syntax. A later block for the
 * same file replaces an earlier one's options, so a nested layer repeats what it inherits.
 */
function layer(name, { ignores = [], pkgs = [], folders = {}, paths = [], rules = {} }) {
  // esquery's regular expressions end at the first `/`, so slashes are written as \x2F.
  const selector = (regex) => `/${regex.replaceAll('/', '\\x2F')}/`;
  const top = name.split('/').length;
  return [0, 1, 2, 3, 4, 5].map((below) => {
    const refused = [
      ...pkgs,
      ...Object.entries(folders).map(([target, message]) => ({ regex: leadsInto(name, top + below, target), message })),
    ];
    return {
      files: [`${name}/${'*/'.repeat(below)}*`],
      ignores,
      rules: {
        'no-restricted-imports': ['error', { paths, patterns: refused }],
        'no-restricted-syntax': [
          'error',
          ...refused.flatMap(({ regex, message }) => [
            { selector: `ImportExpression[source.value=${selector(regex)}]`, message },
            { selector: `CallExpression[callee.name="require"][arguments.0.value=${selector(regex)}]`, message },
          ]),
        ],
        ...rules,
      },
    };
  });
}

const SERVER_NOT_WIDGET = { widget: 'The server does not import the widget: what both use lives in shared/.' };
const WIDGET_NOT_SERVER = {
  server: 'The widget talks to the server over the protocol in shared/, never by importing it.',
};
const OUTER_LAYERS = Object.fromEntries(
  ['outbound', 'storage', 'http', 'routes', 'plugins', 'realtime', 'adapters'].map((l) => [
    `server/${l}`,
    'server/domain/ depends on no outer layer: routes -> domain services -> ports <- storage, realtime.',
  ]),
);

export default defineConfig(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'packages/*/dist/',
      'packages/*/src/generated/',
      'build/',
      'data/',
      'coverage/',
      'test-artifacts/',
      '.tmp/',
      '.tmp-*/',
      '.exp-*/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_`-prefixed names are kept on purpose (a handler's unused argument, a destructured omission).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // Text is cleaned of NUL and other control characters on purpose (search terms, file names).
      'no-control-regex': 'off',
    },
  },
  {
    // Tests, benchmarks and the demo console read untyped JSON from the API they exercise.
    files: ['test/**', 'bench/**', 'demo/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['widget/**', 'demo/**', 'console/**', 'test/browser/**', 'test/widget/**'],
    ignores: ['widget/build.ts', 'demo/seed.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // A published package: it imports nothing from the repository's folders, which an application does not have.
    files: ['packages/*/src/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(\\.\\./){2,}', message: 'A package imports only its own files and its dependencies.' },
          ],
        },
      ],
    },
  },
  // The layer rules (shared/ARCHITECTURE.md).
  ...layer('server', {
    ignores: ['server/outbound/**'],
    pkgs: [HTTP_CLIENTS],
    folders: SERVER_NOT_WIDGET,
    paths: NODE_HTTP_CLIENT,
    rules: NO_OWN_HTTP,
  }),
  ...layer('server/outbound', { folders: SERVER_NOT_WIDGET }),
  ...layer('server/domain', {
    pkgs: [HTTP_CLIENTS, DRIVERS],
    folders: { ...SERVER_NOT_WIDGET, ...OUTER_LAYERS },
    paths: NODE_HTTP_CLIENT,
    rules: NO_OWN_HTTP,
  }),
  ...layer('shared', {
    folders: {
      server: 'shared/ is used by the server and the widget and imports neither.',
      widget: 'shared/ is used by the server and the widget and imports neither.',
    },
  }),
  ...layer('widget', { ignores: ['widget/build.ts'], pkgs: [NODE_BUILTINS], folders: WIDGET_NOT_SERVER }),
  ...layer('console', {
    pkgs: [NODE_BUILTINS],
    folders: { server: 'The console calls the public v2 API (console/api.ts), never server code.' },
  }),
  ...layer('widget/ui', {
    pkgs: [NODE_BUILTINS],
    folders: { ...WIDGET_NOT_SERVER, 'widget/transport': NOT_TRANSPORT },
    rules: {
      'no-restricted-globals': [
        'error',
        ...['fetch', 'WebSocket', 'EventSource'].map((name) => ({ name, message: NOT_TRANSPORT })),
      ],
    },
  }),
);
