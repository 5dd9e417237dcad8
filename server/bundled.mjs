// The bundle of a TypeScript entry (server/main.ts unless named): the last build when its
// sources still read the same (checked here, without loading esbuild), else built by
// server/bundle.mjs in a short-lived process of its own (so the build's memory never stays
// in the caller) and without NODE_OPTIONS (a profile or a heap limit is for the caller, not
// the build). Returns the bundle's file URL; throws when it cannot be built or written
// (bundle.mjs's reason is on stderr). Used by server/start.mjs and scripts/bundled.mjs.

import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleName, currentBundle } from './bundling.mjs';

export function bundled(entry) {
  const url = entry ? pathToFileURL(resolve(entry)) : new URL('./main.ts', import.meta.url);
  const current = currentBundle(url, bundleName(url));
  if (current) return current;
  const script = fileURLToPath(new URL('./bundle.mjs', import.meta.url));
  return execFileSync(process.execPath, [script, fileURLToPath(url)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } });
}
