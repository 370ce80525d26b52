// The shape the code keeps as it grows, measured with the TypeScript compiler: no import circle
// in the service's src/ or a package's (type-only imports count: a circle of types is a circle a
// reader walks too), and no function in src/ longer than 70 lines (the simulator's builders of
// whole Stripe objects, a field a line, are as long as Stripe's objects). Runs once, in the PGlite
// half.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';
import { projectPath } from '../../src/adapters/project-root.ts';
import { onPostgres } from '../helpers/database.ts';

const MAX_FUNCTION_LINES = 70;
const ROOTS = [
  'src',
  ...readdirSync(projectPath('packages')).map((name) => `packages/${name}/src`),
];

const sourcesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });

interface Parsed {
  imports: Map<string, string[]>;
  longFunctions: string[];
}

function functionName(node: ts.Node): string {
  const named = (node as { name?: ts.Node }).name;
  if (named) return named.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))
    return parent.name.getText();
  return '(anonymous)';
}

function parse(files: string[]): Parsed {
  const imports = new Map<string, string[]>();
  const longFunctions: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(
      file,
      readFileSync(file, 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
    const local: string[] = [];
    const visit = (node: ts.Node): void => {
      const specifier = (node as { moduleSpecifier?: ts.Expression }).moduleSpecifier;
      if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.'))
        local.push(resolve(dirname(file), specifier.text));
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const lines = lineOf(node.getEnd()) - lineOf(node.getStart()) + 1;
        if (lines > MAX_FUNCTION_LINES)
          longFunctions.push(
            `${relative(projectPath(), file)} ${functionName(node)}: ${lines} lines`,
          );
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    imports.set(file, local);
  }
  return { imports, longFunctions };
}

/** Each circle of imports (Tarjan's strongly connected components of more than one file). */
function circles(imports: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of imports.get(file) ?? []) {
      if (!imports.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const circle: string[] = [];
    for (let member = stack.pop(); ; member = stack.pop()) {
      circle.push(relative(projectPath(), member!));
      if (member === file) break;
    }
    if (circle.length > 1) found.push(circle);
  };
  for (const file of imports.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe(
  'the structure of the code',
  { skip: onPostgres && 'runs once, in the PGlite half' },
  () => {
    for (const root of ROOTS) {
      const { imports, longFunctions } = parse(sourcesUnder(projectPath(root)));

      test(`${root}: no import circle`, () => {
        assert.deepEqual(circles(imports), []);
      });

      if (root === 'src')
        test(`${root}: no function over ${MAX_FUNCTION_LINES} lines`, () => {
          assert.deepEqual(longFunctions, []);
        });
    }
  },
);
