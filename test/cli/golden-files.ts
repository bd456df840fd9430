/**
 * Golden files of test/cli/golden/display/: output compared whole, after `normalise` took out what varies from run to
 * run. STACKYARD_UPDATE_GOLDEN=1 rewrites the files from our output instead, so `git diff` shows where we differ
 * from Pulumi — review every line of it before committing.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { REPO, TESTPROV_DIR, type CliSandbox } from './cli-harness.js';

const GOLDEN = join(import.meta.dirname, 'golden/display');
const UPDATE = process.env.STACKYARD_UPDATE_GOLDEN === '1';

/** Expects `text`, normalised, to be the golden file `<name>.txt`. */
export function expectGolden(name: string, text: string, normalise: (text: string) => string): void {
  const file = join(GOLDEN, `${name}.txt`);
  if (UPDATE) writeFileSync(file, normalise(text));
  expect(normalise(text)).toBe(readFileSync(file, 'utf8'));
}

/**
 * The display program (test/fixtures/programs/display) in a project folder of `sandbox`, with testprov and its own
 * world folder; `run` runs the CLI there.
 */
export function displayProject(sandbox: CliSandbox, folder: string): { dir: string; run: (...args: string[]) => ReturnType<CliSandbox['run']> } {
  const world = join(sandbox.root, `${folder}-world`);
  mkdirSync(world);
  const dir = sandbox.project(folder, `name: display\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`, {
    'package.json': '{"name": "display", "main": "index.js"}\n',
  });
  copyFileSync(join(REPO, 'test/fixtures/programs/display/index.js'), join(dir, 'index.js'));
  return { dir, run: (...args) => sandbox.run(dir, args, { env: { TESTPROV_WORLD: world } }) };
}
