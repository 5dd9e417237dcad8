// Starts a worker thread on a TypeScript module without tsx in the thread: the module and
// what it imports from this repository are bundled by esbuild (which tsx itself runs on)
// into one ES module, handed to the Worker as a data: URL. The bundle is kept in the cache
// beside the server's (server/bundling.mjs) and built again only when a source it bundles
// changes (about 175 ms of esbuild at each start for the three workers otherwise). A
// worker booted through tsx's loader instead carries the loader and compiles every module
// again: about 33 MB resident a thread, against about 11 MB bundled — and the server runs
// three.
//
//   const worker = startWorker(new URL('./journal-worker.ts', import.meta.url), { workerData, transferList });
//
// Packages stay outside the bundle (native addons such as better-sqlite3 cannot be
// bundled, and a package is loaded once per thread either way); a data: URL has no
// directory to resolve a bare name from, so each is rewritten to the absolute file: URL
// Node resolves for it from here. Invariant kept: a module that reads its own location
// (import.meta.url) cannot be run from a data: URL, so such a bundle is refused at start.

import { buildSync } from 'esbuild';
import { builtinModules } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { writeSideLimits } from '../core/limits.ts';
import { bundleName, cachedCodeSync } from '../server/bundling.mjs';

/** Bundled entries of this process, by the entry's URL: code, not state (no shard shares anything through it). */
const bundles = new Map<string, URL>();
const builtins = new Set(builtinModules);

export function startWorker(entry: URL, options: WorkerOptions = {}): Worker {
  return new Worker(bundleOf(entry), { ...options, resourceLimits: { maxOldGenerationSizeMb: writeSideLimits.workerOldSpaceMb, maxYoungGenerationSizeMb: writeSideLimits.workerYoungSpaceMb, ...options.resourceLimits } });
}

function bundleOf(entry: URL): URL {
  const known = bundles.get(entry.href);
  if (known) return known;
  const code = resolvePackages(cachedCodeSync(entry, bundleName(entry), () => {
    const built = buildSync({
      entryPoints: [fileURLToPath(entry)], bundle: true, platform: 'node', format: 'esm', target: 'node20',
      packages: 'external', write: false, logLevel: 'silent', legalComments: 'none', metafile: true,
    });
    // This file too: the options above are part of what the bundle is.
    return { code: built.outputFiles[0]!.text, inputs: [...Object.keys(built.metafile.inputs).map((path) => resolve(path)), fileURLToPath(import.meta.url)] };
  }));
  if (code.includes('import.meta.url')) throw new Error(`${entry.pathname}: a module it bundles reads import.meta.url, which a data: URL worker cannot give`);
  const url = new URL(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  bundles.set(entry.href, url);
  return url;
}

/** `from "pkg"` and `import("pkg")` of the bundle's external packages → the absolute file: URLs Node resolves from here. */
function resolvePackages(code: string): string {
  return code.replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)"([^"./][^"]*)"/g, (whole, lead: string, specifier: string) => {
    if (specifier.startsWith('node:') || builtins.has(specifier)) return whole;
    return `${lead}${JSON.stringify(import.meta.resolve(specifier))}`;
  });
}
