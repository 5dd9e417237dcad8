// Starts the satang command line from any working directory. main.ts and what it imports
// from this repository run bundled (server/bundling.mjs: built once, and again only when a
// source it bundles changes), so a command does not boot tsx's loader and compile its
// modules first: 0.4–0.6 s a command against 1.1 s through tsx. Where no bundle can be
// built or written, it runs through tsx as before (resolved from this file's folder, so it
// works outside the repository) and says why on stderr.
import { bundleName, cachedBundle } from '../../server/bundling.mjs';

let main;
try {
  const entry = new URL('./main.ts', import.meta.url);
  main = await cachedBundle(entry, bundleName(entry));
} catch (error) {
  process.stderr.write(`satang: the command line runs through tsx, as it could not be bundled: ${error.message.split('\n')[0]}\n`);
  const { register } = await import('tsx/esm/api');
  register();
  main = new URL('./main.ts', import.meta.url).href;
}
await import(main);
