/**
 * The house's two import rules (docs/architecture.md), checked on the whole source tree in about a second:
 * no import circle, and the floors `cli/` → `functions/` → `shared/`, `infra/` → `functions/`, with console/src on
 * its own. Type-only imports count: a type-only circle costs nothing at run time but is as hard to enter as any.
 * Test files are walked too (a circle through a test helper is still a circle); the floors bind production code
 * only, since tests reach across them on purpose (serve for the CLI tests, test/support for every test).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findCycles, floorViolations, readImportGraph, type FloorException } from './import-graph.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROOTS = ['shared', 'cli', 'functions', 'infra', 'console/src'];

/** Each folder and the folders it may import (itself included): nothing climbs back up. */
const FLOORS: Record<string, string[]> = {
  shared: ['shared'],
  functions: ['functions', 'shared'],
  infra: ['infra', 'functions', 'shared'],
  cli: ['cli', 'functions', 'shared'],
  'console/src': ['console/src'],
};

const EXCEPTIONS: FloorException[] = [
  { from: 'cli/bin/stackyard.js', to: 'dist/cli/stackyard.mjs', why: 'the `stackyard` launcher starts the built bundle' },
];

describe('the import graph of shared/, cli/, functions/, infra/ and console/src/', () => {
  const graph = readImportGraph(REPO, ROOTS);

  it('has no import cycle', () => {
    const cycles = findCycles(graph);

    expect(cycles.join('\n'), `${cycles.length} import cycle(s), one per line`).toBe('');
  });

  it('keeps the floors: cli → functions → shared, infra → functions, console/src on its own', () => {
    const violations = floorViolations(graph, FLOORS, EXCEPTIONS).map((v) => `${v.from} → ${v.to}: ${v.rule}`);

    expect(violations.join('\n'), `${violations.length} import(s) across a floor, one per line`).toBe('');
  });
});

describe('the import graph reader', () => {
  const repo = mkdtempSync(join(tmpdir(), 'import-graph-'));
  afterAll(() => rmSync(repo, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(repo, file)), { recursive: true });
    writeFileSync(join(repo, file), text);
  };
  write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', jsx: 'react-jsx' } }));

  it('follows static, type-only, re-exported and dynamic imports, and prints the cycle as a path', () => {
    // Each import kind carries one edge of the circle: miss any and there is no cycle.
    write('loop/a.ts', "import { b } from './b.js';\nexport const a = b;\n");
    write('loop/b.ts', "import type { C } from './c/index.js';\nexport const b: C = 1;\n");
    write('loop/c/index.ts', "export * from '../d.js';\nexport type C = number;\n");
    write('loop/d.tsx', "export const load = () => import('./a.js');\n");
    write('loop/e.ts', "import './a.js';\nimport 'node:fs';\nimport './styles.css';\n");

    expect(findCycles(readImportGraph(repo, ['loop']))).toEqual(['loop/a.ts → loop/b.ts → loop/c/index.ts → loop/d.tsx → loop/a.ts']);
  });

  it('prints one shortest path through a larger circle, with its size, and finds a file that imports itself', () => {
    write('big/a.ts', "import './b.js';\nimport './c.js';\n");
    write('big/b.ts', "import './a.js';\n");
    write('big/c.ts', "import './a.js';\n");
    write('self/s.ts', "export const load = () => import('./s.js');\n");

    expect(findCycles(readImportGraph(repo, ['big', 'self']))).toEqual([
      'big/a.ts → big/b.ts → big/a.ts (one path through a circle of 3 files)',
      'self/s.ts → self/s.ts',
    ]);
  });

  it('reports an import that climbs a floor or reaches test code, but not a test that does', () => {
    write('low/x.ts', "import '../high/y.js';\nimport '../test/support.js';\n");
    write('low/x.test.ts', "import '../high/y.js';\n");
    write('high/y.ts', "import '../low/x.js';\n");
    write('test/support.ts', 'export {};\n');
    const graph = readImportGraph(repo, ['low', 'high']);

    expect(floorViolations(graph, { low: ['low'], high: ['high', 'low'] })).toEqual([
      { from: 'low/x.ts', to: 'high/y.ts', rule: 'low/ may import only low/' },
      { from: 'low/x.ts', to: 'test/support.ts', rule: 'production code imports no test code' },
    ]);
  });
});
