// `npm start`: the server without tsx in its process. server/bundle.mjs bundles
// server/main.ts (in a process of its own, so the build leaves nothing behind here) and
// names the bundle (without NODE_OPTIONS: a profile or a heap limit is for the server); this
// imports it and serves until signalled.

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bundle = execFileSync(process.execPath, [fileURLToPath(new URL('./bundle.mjs', import.meta.url))], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } });
const { serveUntilSignalled } = await import(bundle);
await serveUntilSignalled();
