/**
 * Pulumi's own integration programs (test/fixtures/pulumi-integration, from pulumi/pulumi's tests/integration) run
 * through the bundled CLI on `login --local`, each checked as its Go test in integration_nodejs_test.go checks it:
 * `log_debug` (TestLogDebugNode), `oom` (TestNodeOOM) and `codepaths-tsc` (TestCodePathsTSC). Needs `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, REPO, removeSandboxes } from './cli-harness.js';

const FIXTURES = join(REPO, 'test/fixtures/pulumi-integration');

/** The diagnostic events of an `--event-log` file. */
function diagnostics(eventLog: string): { severity: string; message: string }[] {
  return readFileSync(eventLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { diagnosticEvent?: { severity: string; message: string } })
    .flatMap((e) => (e.diagnosticEvent ? [e.diagnosticEvent] : []));
}

describe("Pulumi's integration programs", () => {
  const sandbox = new CliSandbox();

  beforeAll(async () => {
    await sandbox.run(sandbox.root, ['login', '--local']);
  });
  afterAll(removeSandboxes);

  it('log_debug: pulumi.log.debug reaches the event log without -v, and the display with -v', async () => {
    // Arrange
    const project = sandbox.project('log-debug', readFileSync(join(FIXTURES, 'log_debug/Pulumi.yaml'), 'utf8'));
    copyFileSync(join(FIXTURES, 'log_debug/index.ts'), join(project, 'index.ts'));
    const cli = (...args: string[]) => sandbox.run(project, args);
    await cli('stack', 'init', 'dev');
    const eventLog = join(project, 'events.jsonl');

    // Act: ProgramTest's update is `up --yes --skip-preview --event-log <file>`
    const up = await cli('up', '--yes', '--skip-preview', '--event-log', eventLog);
    const verbosePreview = await cli('preview', '-v', '3');

    // Assert
    expect(up.status, up.stderr).toBe(0);
    const debug = diagnostics(eventLog).filter((d) => d.severity === 'debug');
    expect(debug.map((d) => d.message)).toContain('A debug message\n');
    // TestLogDebugNode: at least one, and at most 25 on so small a program
    expect(debug.length).toBeGreaterThan(0);
    expect(debug.length).toBeLessThanOrEqual(25);
    expect(up.stdout).not.toContain('A debug message');
    expect(verbosePreview.stdout).toContain('A debug message');
  });

  it('oom: a heap limit given in nodeargs or NODE_OPTIONS holds, and the end is reported as a possible out of memory error', async () => {
    // Arrange: Pulumi's program gives itself 2048 MB through nodeargs; a small limit keeps the run light on a shared
    // machine and shows the limit holds (the program prints the heap limit V8 was given)
    const withNodeargs = sandbox.project('oom', 'name: nodejs-oom\nruntime:\n  name: nodejs\n  options:\n    nodeargs: --max-old-space-size=64\n');
    const withNodeOptions = sandbox.project('oom-node-options', 'name: nodejs-oom\nruntime: nodejs\n');
    for (const [dir, stack] of [[withNodeargs, 'nodeargs'], [withNodeOptions, 'node-options']] as const) {
      copyFileSync(join(FIXTURES, 'oom/index.js'), join(dir, 'index.js'));
      await sandbox.run(dir, ['stack', 'init', stack]);
    }

    // Act
    const up = await sandbox.run(withNodeargs, ['up', '--yes']);
    const preview = await sandbox.run(withNodeOptions, ['preview'], { env: { NODE_OPTIONS: '--max-old-space-size=80' } });

    // Assert
    for (const run of [up, preview]) {
      expect(run.status).not.toBe(0);
      expect(run.stdout + run.stderr).toContain('Detected a possible out of memory error');
      expect(run.stdout).toContain('Program exited with non-zero exit code: -1. Detected a possible out of memory error. Consider increasing');
    }
    const limits = (run: { stdout: string }) => [...run.stdout.matchAll(/limit: (\d+)/g)].map((m) => Number(m[1]));
    // V8 adds its young generation to the old space's limit
    expect(Math.max(...limits(up))).toBeLessThan(64 + 64);
    expect(Math.max(...limits(preview))).toBeLessThan(80 + 64);
  });

  it('codepaths-tsc: a program compiled by tsc into bin/ (main: bin/index.js) finds its direct dependencies', async () => {
    // Arrange: ProgramTest's RunBuild (`yarn run build`, which is `tsc`)
    const project = sandbox.project('codepaths-tsc', readFileSync(join(FIXTURES, 'codepaths_tsc/Pulumi.yaml'), 'utf8'));
    for (const file of ['index.ts', 'package.json', 'tsconfig.json']) copyFileSync(join(FIXTURES, 'codepaths_tsc', file), join(project, file));
    cpSync(join(FIXTURES, 'codepaths_tsc/bin'), join(project, 'bin'), { recursive: true });
    execFileSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc')], { cwd: project });
    await sandbox.run(project, ['stack', 'init', 'dev']);

    // Act
    const preview = await sandbox.run(project, ['preview']);
    const up = await sandbox.run(project, ['up', '--yes']);

    // Assert
    expect(preview.status, preview.stdout).toBe(0);
    expect(up.status, up.stdout).toBe(0);
    expect(up.stdout).not.toContain('Expected to find a path matching');
  });
});
