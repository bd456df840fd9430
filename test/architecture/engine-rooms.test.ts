/**
 * The rooms of cli/engine (docs/architecture.md) are floors: a module imports its own room or rooms on lower floors,
 * so a feature entering one room never drags in the engine above it, and no circle can form between rooms. The
 * engine's imports of other folders (shared/, cli/plugins/) are the house floors' business (import-graph.test.ts).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { floorViolations, readImportGraph, type ImportGraph } from './import-graph.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ENGINE = 'cli/engine';

/** The engine's rooms, lowest floor first; the entry modules at the top of cli/engine are the highest floor. */
const FLOORS: string[][] = [['rpc', 'go-formats', 'config'], ['resource'], ['state'], ['display'], ['plugins', 'plans'], ['steps'], ['program', 'import']];

/** Each room and the rooms it may import (itself and every lower floor); the entry may import every room. */
function allowedImports(): Record<string, string[]> {
  const allowed: Record<string, string[]> = {};
  const below: string[] = [];
  for (const floor of FLOORS) {
    for (const room of floor) allowed[`${ENGINE}/${room}`] = [`${ENGINE}/${room}`, ...below];
    below.push(...floor.map((room) => `${ENGINE}/${room}`));
  }
  // listed last: a file of a room matches its room before it matches the engine's top
  allowed[ENGINE] = [ENGINE, ...below];
  return allowed;
}

/** The engine's own import graph: its files, and only the imports that stay inside it. */
function engineGraph(): ImportGraph {
  const graph = readImportGraph(REPO, [ENGINE]);
  return new Map([...graph].map(([file, imports]) => [file, imports.filter((to) => to.startsWith(`${ENGINE}/`))]));
}

describe('the rooms of cli/engine', () => {
  const graph = engineGraph();

  it('puts every folder of the engine on a floor', () => {
    const rooms = new Set([...graph.keys()].map((file) => file.slice(ENGINE.length + 1).split('/')).filter((parts) => parts.length > 1).map((parts) => parts[0]));
    const unplaced = [...rooms].filter((room) => !FLOORS.flat().includes(room!));

    expect(unplaced).toEqual([]);
  });

  it('imports only the own room or a lower floor', () => {
    const violations = floorViolations(graph, allowedImports()).map((v) => `${v.from} → ${v.to}: ${v.rule}`);

    expect(violations.join('\n'), `${violations.length} import(s) climbing a floor, one per line`).toBe('');
  });
});
