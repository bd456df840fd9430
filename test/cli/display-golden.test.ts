/**
 * Golden tests of the display through the bundled CLI (needs `npm run build`): test/fixtures/programs/display run
 * through `preview` and `up` on `login --local`, without a terminal, its output compared whole to a golden file of
 * test/cli/golden/display/. Timings are normalised (`(0.08s)` and `Duration: 4s` read `(Xs)` and `Duration: Xs`).
 *
 * The golden files are what `pulumi` prints for the same program, written from Pulumi's display code
 * (pkg/backend/display: progress.go, rows.go, object_diff.go, diff.go's renderSummaryEvent, jsonmessage.go) and its
 * testdata (not-truncated/*.non-interactive.stdout.txt), never copied from our output. To see what we print instead,
 * run with STACKYARD_UPDATE_GOLDEN=1: the files are rewritten from our output, and `git diff` shows where we differ
 * from Pulumi — review every line of it before committing. The `--diff` files (diff-*.txt) were written by our diff
 * view once it rendered every one of Pulumi's own diff-view golden files byte for byte
 * (cli/engine/display/diff/pulumi-testdata.test.ts), and reviewed line by line against diff.go and object_diff.go.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayProject, expectGolden } from './golden-files.js';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

/** Timings and testprov's random ids vary from run to run; everything else must match. */
function normalise(text: string): string {
  return text
    .replace(/\(\d+(?:\.\d+)?s\)/g, '(Xs)')
    .replace(/Duration: [\dhms]+/g, 'Duration: Xs')
    .replace(/\[id=(.+?)-[0-9a-f]{8}\]/g, '[id=$1-XXXXXXXX]');
}

describe('display golden files (non-interactive)', () => {
  const sandbox = new CliSandbox();
  let cli: ReturnType<typeof displayProject>['run'];

  beforeAll(async () => {
    cli = displayProject(sandbox, 'display').run;
    await cli('login', '--local');
  });
  afterAll(removeSandboxes);

  it('default: a preview and an update of a new stack, flat rows, the Outputs laid out, default provider left out', async () => {
    await cli('stack', 'init', 'dev');

    const preview = await cli('preview');
    const up = await cli('up', '--yes', '--skip-preview');

    expect(preview.status, preview.stderr).toBe(0);
    expect(up.status, up.stderr).toBe(0);
    expectGolden('default-preview', preview.stdout, normalise);
    expectGolden('default-up', up.stdout, normalise);
  }, 120_000);

  it('--show-sames: the unchanged resources get rows, and every output is listed', async () => {
    await cli('stack', 'init', 'sames');
    await cli('up', '--yes', '--skip-preview');
    await cli('config', 'set', 'step', '2');

    const preview = await cli('preview', '--show-sames');
    const up = await cli('up', '--yes', '--skip-preview', '--show-sames');

    expect(preview.status, preview.stderr).toBe(0);
    expect(up.status, up.stderr).toBe(0);
    expectGolden('show-sames-preview', preview.stdout, normalise);
    expectGolden('show-sames-up', up.stdout, normalise);
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
    expectGolden('diff-create-preview', create.stdout, normalise);
    expectGolden('diff-preview', preview.stdout, normalise);
    expectGolden('diff-up', up.stdout, normalise);
  }, 120_000);
});
