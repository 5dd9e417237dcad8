// Runs a TypeScript entry as `npm start` runs the server: bundled by server/bundle.mjs and
// imported by plain node, without tsx's loader in the process (nor the keepNames wrapper
// tsx gives every function it compiles): for profiling the core as the server runs it.
//   node scripts/bundled.mjs scripts/bench-core.ts [args…]

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/bundled.mjs ENTRY.ts [args…]');
  process.exit(2);
}
const bundle = execFileSync(process.execPath, [fileURLToPath(new URL('../server/bundle.mjs', import.meta.url)), entry], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } });
process.argv = [process.argv[0], fileURLToPath(bundle), ...rest];
await import(bundle);
