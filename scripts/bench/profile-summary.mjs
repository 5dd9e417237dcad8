// Summarises a V8 .cpuprofile (node --cpu-prof): self time by function and by file, the
// top of each, as JSON. For reading where a benchmarked process spends its thread.
// Usage: node scripts/bench/profile-summary.mjs FILE.cpuprofile [--top N]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
if (positionals.length !== 1) {
  console.error('usage: node scripts/bench/profile-summary.mjs FILE.cpuprofile [--top N]');
  process.exit(2);
}
const top = Number(values.top);
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
const byFunction = new Map();
const byFile = new Map();
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const file = url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*?\/(core|adapters|server|projections|scripts)\//, '$1/') || '(native)';
  add(byFunction, `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`, us);
  add(byFile, file, us);
}
const rank = (map) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => ({ name, ms: Math.round(us / 1000), percent: Math.round((us * 1000) / totalUs) / 10 }));
console.log(JSON.stringify({ total_ms: Math.round(totalUs / 1000), by_function: rank(byFunction), by_file: rank(byFile) }, null, 2));
