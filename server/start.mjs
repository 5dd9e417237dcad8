// `npm start`: the server without tsx in its process. server/bundled.mjs has server/main.ts
// bundled (in a process of its own, so the build leaves nothing behind here); this imports
// the bundle and serves until signalled.
//
// When the bundle cannot be built or written (bundle.mjs tries node_modules/.cache/satang/,
// then a cache of the user's own that nobody else may write), the server still starts,
// through tsx's loader as `node --import tsx server/main.ts` runs it, at the cost of the
// memory that loader keeps (about 80 MB resident; see bundle.mjs), and says so.

import { bundled } from './bundled.mjs';

// The worker threads' modules are bundled at start by esbuild's synchronous API
// (adapters/worker-thread.ts). By default that API keeps a thread of its own in this
// process and an esbuild service process beside it for the life of the server (≈ 25 MB
// between them, measured); with this it runs esbuild once per build and nothing stays.
// Read when esbuild is loaded, so set before the server is imported.
process.env.ESBUILD_WORKER_THREADS ??= '0';

let url;
try {
  url = bundled();
} catch {
  // bundle.mjs said why on stderr.
  process.stderr.write('satang: the server could not be bundled; starting it through tsx instead, which keeps about 80 MB more resident\n');
  const { register } = await import('tsx/esm/api');
  register();
  url = new URL('./main.ts', import.meta.url).href;
}
const { serveUntilSignalled } = await import(url);
await serveUntilSignalled();
