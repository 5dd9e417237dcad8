// Bundles server/main.ts for `npm start` (or the TypeScript entry named as the argument:
// `scripts/bundled.mjs` runs a benchmark so, as the server runs) and prints the bundle's
// file URL. server/bundled.mjs runs this in a short-lived process of its own, and only when
// the last build is out of date, so the build's memory (esbuild's output, its service)
// never stays in the server.
//
// Why a bundle: run through tsx, the server keeps tsx's loader thread, its compiled sources
// and their source maps for the life of the process, about 80 MB resident on an idle
// server (235 MB against 153 MB, measured). So main.ts and what it imports from this
// repository are bundled by esbuild (which tsx itself runs on) into ES modules, written
// once per distinct build under node_modules/.cache/satang/, where packages resolve as from
// the repository, or where node_modules/ is read-only in a cache of the user's own
// (server/bundling.mjs: the cache, and when a build is reused). Worker threads bundle their
// modules at start, into data: URLs (adapters/worker-thread.ts).
//
// A module that reads its own location keeps it: each bundled file's `import.meta.url` is
// that file's URL, not the bundle's (server/bundling.mjs). A source map lies beside the
// bundle for `node --enable-source-maps`.

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleName, cachedBundle } from './bundling.mjs';

const entry = process.argv[2] ? pathToFileURL(resolve(process.argv[2])) : new URL('./main.ts', import.meta.url);
try {
  process.stdout.write(await cachedBundle(entry, bundleName(entry)));
} catch (error) {
  process.stderr.write(`bundle.mjs: the bundle cannot be built or written: ${error.message}\n`);
  process.exit(1);
}
