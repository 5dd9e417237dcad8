// No function in core/ is longer than 70 lines (STYLE.md 11: "a function that passes ~70
// is usually two things; split it where the seam is natural"). core/ is where the rules
// live, so it is where a reader most needs to see a whole function at once.
//
// Read with the TypeScript compiler API: every function declaration, method, constructor,
// accessor, arrow function and function expression, counted from the line of its first
// token (after its doc comment) to the line of its last, both included. A function nested
// in another counts in the outer one's lines as well as its own. The failure lists every
// offender as file:line, name and length.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Node, SourceFile } from 'typescript';
import { readSource, sourceFiles, ts } from './source-files.ts';

const functionLinesMax = 70;

interface FunctionSpan { readonly file: string; readonly line: number; readonly name: string; readonly lines: number }

/** What a reader would call the function: its own name, or the variable, property or class member it is bound to. */
function functionName(node: Node, sourceFile: SourceFile): string {
  const named = node as Node & { name?: Node };
  if (named.name) return named.name.getText(sourceFile);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText(sourceFile);
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return `(anonymous ${ts.SyntaxKind[node.kind]})`;
}

function isFunctionLike(node: Node): boolean {
  return ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node)
    || ts.isFunctionExpression(node) || ts.isConstructorDeclaration(node) || ts.isAccessor(node);
}

function functionSpans(file: string, source: string): FunctionSpan[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const spans: FunctionSpan[] = [];
  const visit = (node: Node): void => {
    if (isFunctionLike(node) && (node as Node & { body?: Node }).body) {
      const first = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line;
      const last = sourceFile.getLineAndCharacterOfPosition(node.getEnd()).line;
      spans.push({ file, line: first + 1, name: functionName(node, sourceFile), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return spans;
}

test('the counter sees every kind of function, names it, and counts first to last line', () => {
  const source = [
    '/** doc */',                                   // 1: not counted
    'export function declared(a: number) {',        // 2
    '  const inner = (b: number) => {',             // 3
    '    return b;',
    '  };',                                         // 5
    '  return inner(a);',
    '}',                                            // 7
    'const expression = function () { return 1; };',
    'class Thing {',
    '  constructor() {}',                           // 10
    '  method(): void {',
    '  }',
    '  get value(): number { return 1; }',
    '}',
    'const object = { handler: async () => 1 };',   // 15
    'declare function bodiless(): void;',
  ].join('\n');
  const found = functionSpans('x.ts', source).map(({ line, name, lines }) => `${line} ${name} ${lines}`);
  assert.equal(found, ['2 declared 6', '3 inner 3', '8 expression 1', '10 constructor 1', '11 method 2', '13 value 1', '15 handler 1']);
});

test(`no function in core/ is longer than ${functionLinesMax} lines`, () => {
  const files = sourceFiles(['core']);
  const spans = files.flatMap((file) => functionSpans(file, readSource(file)));
  assert.ok(spans.length > 100, `expected the functions of all of core/, found ${spans.length}`);
  const offenders = spans.filter((span) => span.lines > functionLinesMax).sort((a, b) => b.lines - a.lines);
  const report = offenders.map((span) => `${span.file}:${span.line} ${span.name}: ${span.lines} lines`);
  assert.ok(offenders.length === 0, `${offenders.length} function(s) in core/ over ${functionLinesMax} lines:\n  ${report.join('\n  ')}`);
});

test.run();
