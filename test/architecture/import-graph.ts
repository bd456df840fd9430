/**
 * The import graph of our source folders, read the way TypeScript reads it: `ts.preProcessFile` lists every import,
 * re-export, type-only import and `import()` of a file, and `ts.resolveModuleName` resolves each with the repo's own
 * compiler options (NodeNext: `./x.js` is `./x.ts`, `./dir/index.ts`…), so no regex guesses what a path means.
 * Packages resolve into node_modules and are left out: only files of the repo are nodes or edges.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** Each source file (repo-relative, `/`-separated) and the repo files it imports, sorted. */
export type ImportGraph = Map<string, string[]>;

/** A file that imports across a floor it may not cross. */
export interface FloorViolation {
  from: string;
  to: string;
  rule: string;
}

/** An import a floor does not allow but that is allowed by name, with the reason. */
export interface FloorException {
  from: string;
  to: string;
  why: string;
}

const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'cdk.out']);

/** The import graph of every source file under `roots` (folders relative to `repo`). */
export function readImportGraph(repo: string, roots: string[]): ImportGraph {
  const options = compilerOptions(repo);
  const cache = ts.createModuleResolutionCache(repo, (name) => name, options);
  const files = roots.flatMap((root) => sourceFiles(join(repo, root))).sort();
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const imports = new Set<string>();
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      // Our files are ES modules ("type": "module"), so every import resolves as an ES import does.
      const resolved = ts.resolveModuleName(fileName, file, options, ts.sys, cache, undefined, ts.ModuleKind.ESNext).resolvedModule;
      if (resolved && !resolved.isExternalLibraryImport) imports.add(repoPath(repo, resolved.resolvedFileName));
    }
    graph.set(repoPath(repo, file), [...imports].sort());
  }
  return graph;
}

/**
 * One cycle per strongly connected component of the graph (a self-import counts), each as the shortest path from
 * the component's first file back to itself: `a.ts → b.ts → a.ts`. A component larger than its printed path says
 * how many files it holds, since every one of them is in some circle with the others.
 */
export function findCycles(graph: ImportGraph): string[] {
  return stronglyConnected(graph)
    .filter((component) => component.length > 1 || graph.get(component[0])!.includes(component[0]))
    .map((component) => {
      const members = new Set(component);
      const start = [...component].sort()[0];
      const path = shortestCycle(graph, start, members);
      const rest = component.length > path.length - 1 ? ` (one path through a circle of ${component.length} files)` : '';
      return path.join(' → ') + rest;
    })
    .sort();
}

/**
 * Every import of a production file that leaves the folders its own folder may import (`allowed`: each root and the
 * roots it may import, itself included), or that reaches test code. Test code (`*.test.*` files and `test/` folders)
 * may import anything: tests start servers and read fixtures across the floors.
 */
export function floorViolations(graph: ImportGraph, allowed: Record<string, string[]>, exceptions: FloorException[] = []): FloorViolation[] {
  const rootOf = (file: string) => Object.keys(allowed).find((root) => file.startsWith(`${root}/`));
  const violations: FloorViolation[] = [];
  for (const [from, imports] of graph) {
    const root = rootOf(from);
    if (!root || isTestCode(from)) continue;
    for (const to of imports) {
      if (exceptions.some((e) => e.from === from && e.to === to)) continue;
      const target = rootOf(to);
      if (isTestCode(to)) violations.push({ from, to, rule: 'production code imports no test code' });
      else if (!target || !allowed[root].includes(target)) violations.push({ from, to, rule: `${root}/ may import only ${allowed[root].map((r) => `${r}/`).join(', ')}` });
    }
  }
  return violations;
}

/** Tests and their fixtures: `*.test.*` files and whatever lives in a `test/` folder. */
function isTestCode(file: string): boolean {
  return /\.test\.[cm]?[jt]sx?$/.test(file) || file.split('/').includes('test');
}

function compilerOptions(repo: string): ts.CompilerOptions {
  const config = ts.readConfigFile(join(repo, 'tsconfig.json'), ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const { options, errors } = ts.convertCompilerOptionsFromJson(config.config.compilerOptions, repo);
  if (errors.length > 0) throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));
  return options;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : sourceFiles(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

function repoPath(repo: string, file: string): string {
  return relative(repo, resolve(file)).split(sep).join('/');
}

/** Tarjan's algorithm: the graph's strongly connected components (files outside the graph are not followed). */
function stronglyConnected(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file)!) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    components.push(component);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return components;
}

/** Breadth-first from `start` within `members`: the shortest import path that comes back to `start`. */
function shortestCycle(graph: ImportGraph, start: string, members: Set<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i];
    for (const next of graph.get(file)!) {
      if (next === start) {
        const path = [start];
        for (let at = file; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (members.has(next) && !cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  throw new Error(`${start} is in no cycle`);
}
