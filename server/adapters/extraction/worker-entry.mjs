// Entry of the extraction worker thread. Plain JavaScript so that it starts the same way under
// `tsx` (production), vitest and a compiled build: it loads the TypeScript task modules through
// tsx's programmatic loader, or their compiled .js siblings when those exist.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

let tsImport;
const modules = new Map();

async function load(specifier) {
  let mod = modules.get(specifier);
  if (mod) return mod;
  if (/\.[cm]?ts$/.test(specifier)) {
    const js = specifier.replace(/\.([cm]?)ts$/, '.$1js');
    if (js.startsWith('file:') && existsSync(fileURLToPath(js))) mod = await import(js);
    else {
      tsImport ??= (await import('tsx/esm/api')).tsImport;
      mod = await tsImport(specifier, import.meta.url);
    }
  } else mod = await import(specifier);
  modules.set(specifier, mod);
  return mod;
}

function serialise(error) {
  const e = error ?? {};
  return {
    name: typeof e.name === 'string' ? e.name : 'Error',
    code: typeof e.code === 'string' ? e.code : undefined,
    message: typeof e.message === 'string' ? e.message : String(error),
    hint: typeof e.hint === 'string' ? e.hint : undefined,
  };
}

parentPort.on('message', async ({ id, module, fn, args }) => {
  try {
    const mod = await load(module);
    if (typeof mod[fn] !== 'function') throw new Error(`${module} has no function ${fn}`);
    const value = await mod[fn](...(args ?? []));
    parentPort.postMessage({ id, ok: true, value });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, error: serialise(error) });
  }
});

// Load the parsers before saying ready, so a task's time budget is spent on the task alone.
try {
  for (const specifier of workerData?.preload ?? []) await load(specifier);
  parentPort.postMessage({ ready: true });
} catch (error) {
  parentPort.postMessage({ ready: false, error: serialise(error) });
}
