/**
 * `--json` through the bundled CLI on `login --local` (needs `npm run build`):
 * - Pulumi's `TestJSONOutput` and `TestJSONOutputWithStreamingPreview` (tests/integration/integration_test.go and
 *   integration_acceptance_test.go) on their program, `stack_outputs` (test/fixtures/pulumi-integration): ProgramTest
 *   runs `preview --non-interactive --diff --json` and `up --non-interactive --yes --skip-preview --event-log <f>
 *   --json`; the output holds a preview digest (their `previewSummaryRegex`) — none when
 *   PULUMI_ENABLE_STREAMING_JSON_PREVIEW streams the preview — and every event of the update's event log as its own
 *   line, encoded as Go's encoder encodes it;
 * - golden files of test/cli/golden/display/ for the display program: `preview --json` (one PreviewDigest) and
 *   `up --json --yes` (its preview's digest, then the update's events a line each), ids, times and durations
 *   normalised. The golden files follow Pulumi's json.go (`ShowPreviewDigest`, `ShowJSONEvents`) and apitype's field
 *   order; STACKYARD_UPDATE_GOLDEN=1 rewrites them from our output, to review with `git diff`.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayProject, expectGolden } from './golden-files.js';
import { CliSandbox, REPO, removeSandboxes } from './cli-harness.js';

const FIXTURES = join(REPO, 'test/fixtures/pulumi-integration');

/** integration_util_test.go's `previewSummaryRegex`. */
const PREVIEW_SUMMARY = /{\s+"steps": \[[\s\S]+],\s+"duration": \d+,\s+"changeSummary": {[\s\S]+}\s+}/;

/**
 * Times, durations, testprov's random ids, provider ids and where node_modules is vary from run to run; the SDK's debug
 * diagnostics (always engine events) vary in number and order, so they and the sequence numbers they take are left
 * out; everything else must match.
 */
function normalise(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\{"sequence":\d+,"timestamp":\d+,"diagnosticEvent":\{.*"severity":"debug"\}\}$/.test(line))
    .join('\n')
    .replace(/"sequence":\d+/g, '"sequence":N')
    .replace(/"timestamp":\d+/g, '"timestamp":0')
    .replace(/"durationSeconds":\d+/g, '"durationSeconds":0')
    .replace(/"duration": \d+/g, '"duration": 0')
    .replace(/"(created|modified)": ?"[^"]+"/g, '"$1":"T"')
    .replace(/file:\/\/\/[^"#]*\/node_modules\//g, 'file:///.../node_modules/')
    .replace(/-[0-9a-f]{8}"/g, '-XXXXXXXX"')
    .replace(/::[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"/g, (id) => (id === '::04da6b54-80e4-46f7-96ec-b56ff0331ba9"' ? id : '::PROVIDER-ID"'));
}

describe('--json', () => {
  const sandbox = new CliSandbox();
  beforeAll(async () => {
    await sandbox.run(sandbox.root, ['login', '--local']);
  });
  afterAll(removeSandboxes);

  it("stack_outputs (TestJSONOutput): the preview's digest, and each event of the update's event log as a line", async () => {
    // Arrange
    const project = sandbox.project('stack-outputs', readFileSync(join(FIXTURES, 'stack_outputs/Pulumi.yaml'), 'utf8'));
    copyFileSync(join(FIXTURES, 'stack_outputs/index.ts'), join(project, 'index.ts'));
    copyFileSync(join(FIXTURES, 'stack_outputs/package.json'), join(project, 'package.json'));
    const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => sandbox.run(project, args, { env });
    await cli(['stack', 'init', 'dev']);
    const eventLog = join(project, 'update.json');

    // Act
    const preview = await cli(['preview', '--non-interactive', '--diff', '--json']);
    const up = await cli(['up', '--non-interactive', '--yes', '--skip-preview', '--event-log', eventLog, '--json']);
    const streamed = await cli(['preview', '--non-interactive', '--diff', '--json'], { PULUMI_ENABLE_STREAMING_JSON_PREVIEW: '1' });

    // Assert
    expect(preview.status, preview.stderr).toBe(0);
    expect(up.status, up.stderr).toBe(0);
    expect(preview.stdout).toMatch(PREVIEW_SUMMARY);
    const logged = readFileSync(eventLog, 'utf8').trimEnd().split('\n');
    expect(logged.length).toBeGreaterThan(3);
    const printed = up.stdout.split('\n');
    for (const line of logged) expect(printed).toContain(line);
    expect(streamed.status, streamed.stderr).toBe(0);
    expect(streamed.stdout).not.toMatch(PREVIEW_SUMMARY);
    expect(streamed.stdout.trimEnd().split('\n').map((l) => Object.keys(JSON.parse(l) as object)[2])).toContain('resourcePreEvent');
  }, 120_000);

  it('the display program: preview --json is one PreviewDigest, up --json its preview digest then the events', async () => {
    // Arrange
    const cli = displayProject(sandbox, 'display').run;
    await cli('stack', 'init', 'json');
    await cli('config', 'set', 'greeting', '<hello & bye>');

    // Act
    const preview = await cli('preview', '--json');
    const up = await cli('up', '--yes', '--json');

    // Assert
    expect(preview.status, preview.stderr).toBe(0);
    expect(up.status, up.stderr).toBe(0);
    expectGolden('json-preview', preview.stdout, normalise);
    expectGolden('json-up', up.stdout, normalise);
  }, 120_000);
});
