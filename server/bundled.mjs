// The bundle of a TypeScript entry (server/main.ts unless named), built by server/bundle.mjs
// in a short-lived process of its own (so the build's memory never stays in the caller)
// and without NODE_OPTIONS (a profile or a heap limit is for the caller, not the build).
// Returns the bundle's file URL; throws when it cannot be built or written (bundle.mjs's
// reason is on stderr). Used by server/start.mjs and scripts/bundled.mjs.

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export function bundled(entry) {
  const script = fileURLToPath(new URL('./bundle.mjs', import.meta.url));
  return execFileSync(process.execPath, entry ? [script, entry] : [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } });
}
