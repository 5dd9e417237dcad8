// Runs a TypeScript entry as `npm start` runs the server: bundled by server/bundle.mjs and
// imported by plain node, without tsx's loader in the process (nor the keepNames wrapper
// tsx gives every function it compiles): for profiling the core as the server runs it.
//   node scripts/bundled.mjs scripts/bench-core.ts [args…]

import { fileURLToPath } from 'node:url';
import { bundled } from '../server/bundled.mjs';

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/bundled.mjs ENTRY.ts [args…]');
  process.exit(2);
}
const bundle = bundled(entry);
process.argv = [process.argv[0], fileURLToPath(bundle), ...rest];
await import(bundle);
