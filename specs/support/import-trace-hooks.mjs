// Module hooks for a spec that must see what a process imports (node:module register):
// every bare package a module asks for is appended to the file named by `initialize`'s
// data, one per line, as it is resolved. Loaded with `node --import import-trace.mjs`.

import { appendFileSync } from 'node:fs';

let file = '';

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, next) {
  if (!specifier.startsWith('.') && !specifier.startsWith('/') && !specifier.includes(':')) appendFileSync(file, `${specifier}\n`);
  return next(specifier, context);
}
