// No import cycle anywhere in the repository. A cycle means two modules that cannot be
// understood, tested or loaded one without the other: they are one room with a wall
// drawn through it (STYLE.md: "the import graph has no cycle").
//
// The graph: every .ts/.mjs file under core/, adapters/, server/, projections/, scripts/
// and specs/; an edge for every relative specifier in a static `import ... from`,
// `export ... from`, side-effect `import '...'` or dynamic `import('...')`, read with the
// TypeScript scanner (so specifiers inside comments and strings do not count). Type-only
// imports count too: it is the simplest rule, and a cycle of types is still two rooms
// that should be one. Package imports (`koa`, `node:fs`) are not edges.
//
// It fails naming every strongly connected component of more than one file, with one
// concrete cycle through it, and every file that imports itself.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { importGraph, resolveSpecifier, sourceFiles, type Graph } from './source-files.ts';

/** Tarjan's strongly connected components; iterative, so a deep chain cannot overflow the stack. */
function stronglyConnectedComponents(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: root, edge: 0 }];
    index.set(root, next); low.set(root, next); next++; stack.push(root); onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const target = edges[frame.edge++]!;
        if (!index.has(target)) {
          index.set(target, next); low.set(target, next); next++; stack.push(target); onStack.add(target);
          work.push({ node: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do { member = stack.pop()!; onStack.delete(member); component.push(member); } while (member !== frame.node);
        components.push(component.sort());
      }
    }
  }
  return components;
}

/** One shortest cycle through `start` inside `component` (breadth-first), as a path that returns to `start`. */
function cycleThrough(graph: Graph, component: readonly string[], start: string): string[] {
  const inside = new Set(component);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const target of graph.get(node) ?? []) {
      if (!inside.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let at = node; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(target)) { cameFrom.set(target, node); queue.push(target); }
    }
  }
  return [start];
}

function describeCycles(graph: Graph): string[] {
  const selfImports = [...graph].filter(([file, targets]) => targets.includes(file)).map(([file]) => `${file} imports itself`);
  const components = stronglyConnectedComponents(graph).filter((component) => component.length > 1);
  const cycles = components.map((component) =>
    `{${component.join(', ')}}, e.g. ${cycleThrough(graph, component, component[0]!).join(' → ')}`);
  return [...selfImports, ...cycles];
}

test('the checker finds a two-file cycle, a longer one and a self-import, and nothing in a tree', () => {
  const graph: Graph = new Map([
    ['a.ts', ['b.ts']], ['b.ts', ['a.ts', 'c.ts']], ['c.ts', []],
    ['d.ts', ['e.ts']], ['e.ts', ['f.ts']], ['f.ts', ['d.ts']],
    ['g.ts', ['g.ts']],
  ]);
  assert.equal(describeCycles(graph), [
    'g.ts imports itself',
    '{a.ts, b.ts}, e.g. a.ts → b.ts → a.ts',
    '{d.ts, e.ts, f.ts}, e.g. d.ts → e.ts → f.ts → d.ts',
  ]);
  assert.equal(describeCycles(new Map([['x.ts', ['y.ts', 'z.ts']], ['y.ts', ['z.ts']], ['z.ts', []]])), []);
});

test('specifiers resolve to our files with or without an extension, and packages are not edges', () => {
  const files = new Set(['core/money.ts', 'core/deposit/state.ts', 'server/worker-boot.mjs', 'server/x/index.ts']);
  assert.is(resolveSpecifier('core/deposit/state.ts', '../money.ts', files), 'core/money.ts');
  assert.is(resolveSpecifier('core/deposit/state.ts', '../money', files), 'core/money.ts');
  assert.is(resolveSpecifier('core/deposit/state.ts', '../money.js', files), 'core/money.ts');
  assert.is(resolveSpecifier('server/app.ts', './worker-boot.mjs', files), 'server/worker-boot.mjs');
  assert.is(resolveSpecifier('server/app.ts', './x', files), 'server/x/index.ts');
  assert.is(resolveSpecifier('server/app.ts', './missing.ts', files), undefined);
});

test('no import cycle in core/, adapters/, server/, projections/, scripts/ or specs/ (type-only imports included)', () => {
  const files = sourceFiles();
  assert.ok(files.length > 100, `expected the whole repository, found ${files.length} files`);
  const graph = importGraph(files);
  const edgeCount = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0);
  assert.ok(edgeCount > files.length, `expected the imports of ${files.length} files, found ${edgeCount} edges`);
  const cycles = describeCycles(graph);
  assert.ok(cycles.length === 0, `${cycles.length} import cycle(s):\n  ${cycles.join('\n  ')}`);
});

test.run();
