/**
 * Golden tests of the display through the bundled CLI (needs `npm run build`): test/fixtures/programs/display run
 * through `preview` and `up` on `login --local`, without a terminal, its output compared whole to a golden file of
 * test/cli/golden/display/. Timings are normalised (`(0.08s)` and `Duration: 4s` read `(Xs)` and `Duration: Xs`).
 *
 * The golden files are what `pulumi` prints for the same program, written from Pulumi's display code
 * (pkg/backend/display: progress.go, rows.go, object_diff.go, diff.go's renderSummaryEvent, jsonmessage.go) and its
 * testdata (not-truncated/*.non-interactive.stdout.txt), never copied from our output. To see what we print instead,
 * run with STACKYARD_UPDATE_GOLDEN=1: the files are rewritten from our output, and `git diff` shows where we differ
 * from Pulumi — review every line of it before committing.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, REPO, TESTPROV_DIR, removeSandboxes } from './cli-harness.js';

const GOLDEN = join(import.meta.dirname, 'golden/display');
const UPDATE = process.env.STACKYARD_UPDATE_GOLDEN === '1';

/** Timings and testprov's random ids vary from run to run; everything else must match. */
function normalise(text: string): string {
  return text
    .replace(/\(\d+(?:\.\d+)?s\)/g, '(Xs)')
    .replace(/Duration: [\dhms]+/g, 'Duration: Xs')
    .replace(/\[id=(.+?)-[0-9a-f]{8}\]/g, '[id=$1-XXXXXXXX]');
}

function expectGolden(name: string, text: string): void {
  const file = join(GOLDEN, `${name}.txt`);
  if (UPDATE) writeFileSync(file, normalise(text));
  expect(normalise(text)).toBe(readFileSync(file, 'utf8'));
}

describe('display golden files (non-interactive)', () => {
  const sandbox = new CliSandbox();
  const world = join(sandbox.root, 'world');
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args, { env: { TESTPROV_WORLD: world } });

  beforeAll(async () => {
    mkdirSync(world);
    project = sandbox.project('display', `name: display\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`, {
      'package.json': '{"name": "display", "main": "index.js"}\n',
    });
    copyFileSync(join(REPO, 'test/fixtures/programs/display/index.js'), join(project, 'index.js'));
    await cli('login', '--local');
  });
  afterAll(removeSandboxes);

  it('default: a preview and an update of a new stack, flat rows, the Outputs laid out, default provider left out', async () => {
    await cli('stack', 'init', 'dev');

    const preview = await cli('preview');
    const up = await cli('up', '--yes', '--skip-preview');

    expect(preview.status, preview.stderr).toBe(0);
    expect(up.status, up.stderr).toBe(0);
    expectGolden('default-preview', preview.stdout);
    expectGolden('default-up', up.stdout);
  }, 120_000);

  it('--show-sames: the unchanged resources get rows, and every output is listed', async () => {
    await cli('stack', 'init', 'sames');
    await cli('up', '--yes', '--skip-preview');
    await cli('config', 'set', 'step', '2');

    const preview = await cli('preview', '--show-sames');
    const up = await cli('up', '--yes', '--skip-preview', '--show-sames');

    expect(preview.status, preview.stderr).toBe(0);
    expect(up.status, up.stderr).toBe(0);
    expectGolden('show-sames-preview', preview.stdout);
    expectGolden('show-sames-up', up.stdout);
  }, 120_000);

  it('--diff: a block per step with its properties, children under their parent, a change as old => new', async () => {
    await cli('stack', 'init', 'diff');
    const create = await cli('preview', '--diff');
    await cli('up', '--yes', '--skip-preview');
    await cli('config', 'set', 'step', '2');

    const preview = await cli('preview', '--diff');
    const up = await cli('up', '--yes', '--skip-preview', '--diff');

    expect(create.status, create.stderr).toBe(0);
    expect(preview.status, preview.stderr).toBe(0);
    expect(up.status, up.stderr).toBe(0);
    expectGolden('diff-create-preview', create.stdout);
    expectGolden('diff-preview', preview.stdout);
    expectGolden('diff-up', up.stdout);
  }, 120_000);
});
