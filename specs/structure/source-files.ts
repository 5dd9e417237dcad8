// The repository's own source files, as the structure specs see them: every .ts and .mjs
// file under the folders that hold code (node_modules and fixtures' data are not code).
// Paths are relative to the repository root, with forward slashes, so reports read the
// same on every machine.

import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, posix, relative, sep } from 'node:path';

export const repositoryRoot = new URL('../../', import.meta.url).pathname;

export const codeFolders: readonly string[] = ['core', 'adapters', 'server', 'projections', 'scripts', 'specs'];

const sourceExtensions: readonly string[] = ['.ts', '.mjs'];

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (sourceExtensions.some((ext) => entry.name.endsWith(ext))) out.push(full);
  }
}

/** Every source file under `folders`, sorted, as repository-relative paths (`core/money.ts`). */
export function sourceFiles(folders: readonly string[] = codeFolders): string[] {
  const out: string[] = [];
  for (const folder of folders) walk(join(repositoryRoot, folder), out);
  return out.map((full) => relative(repositoryRoot, full).split(sep).join('/')).sort();
}

export function readSource(path: string): string {
  return readFileSync(join(repositoryRoot, path), 'utf8');
}

/** The TypeScript compiler API, loaded with require: importing its 9 MB CommonJS file as ESM costs ~2 s of export detection. */
export const ts: typeof import('typescript') = createRequire(import.meta.url)('typescript');

/** Each file's imports of our own files: file → the files it names (repository-relative). */
export type Graph = ReadonlyMap<string, readonly string[]>;

/** The file a relative specifier names, if it is one of ours (`./x.ts`, `./x`, `./dir` → index). */
export function resolveSpecifier(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.mjs`, `${base}/index.ts`];
  return candidates.find((candidate) => files.has(candidate));
}

/**
 * An edge for every relative specifier in a static `import ... from`, `export ... from`,
 * side-effect `import '...'` or dynamic `import('...')`, read with the TypeScript scanner
 * (specifiers inside comments and strings do not count); type-only imports count too.
 * Package imports (`koa`, `node:fs`) are not edges.
 */
export function importGraph(files: readonly string[]): Graph {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readSource(file), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'))
      .map((specifier) => resolveSpecifier(file, specifier, known))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}
