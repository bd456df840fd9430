/**
 * The flags of `preview`, `up`, `refresh` and `destroy` as `pulumi` defines them (pkg/cmd/pulumi/operations), run
 * through the bundled CLI on `login --local` against a real program and the test provider (needs `npm run build`).
 * Each scenario states the `pulumi` behaviour it checks.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { CliSandbox, TESTPROV_DIR, removeSandboxes, type CliResult } from '../../cli/cli-harness.js';
import { deleteFromWorld, worldIds } from '../../support/testprov-world.js';

const PROGRAM = readFileSync(join(import.meta.dirname, 'fixtures/flags/index.js'), 'utf8');
const pulumiYaml = `name: flags\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`;

interface Exported {
  deployment: { resources?: { urn: string; id?: string; type: string }[] };
}

function calls(log: string): { op: string; urn: string }[] {
  return readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { op: string; urn: string });
}

describe('pulumi operation flags through the CLI (--local)', () => {
  const sandbox = new CliSandbox();
  const world = join(sandbox.root, 'world');
  const log = join(sandbox.root, 'calls.log');
  let project: string;
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
    sandbox.run(project, args, { env: { TESTPROV_WORLD: world, TESTPROV_LOG: log, ...env } });
  const stackFile = () => parseYaml(readFileSync(join(project, 'Pulumi.dev.yaml'), 'utf8')) as { config: Record<string, unknown> };
  const outputs = async () => JSON.parse((await cli(['stack', 'output', '--json'])).stdout) as Record<string, unknown>;
  const exported = async () => JSON.parse((await cli(['stack', 'export'])).stdout) as Exported;

  beforeAll(async () => {
    rmSync(world, { recursive: true, force: true });
    mkdirSync(world);
    writeFileSync(log, '');
    project = sandbox.project('flags', pulumiYaml, { 'index.js': PROGRAM });
    await sandbox.run(sandbox.root, ['login', '--local']);
    await cli(['stack', 'init', 'dev']);
  });
  afterAll(removeSandboxes);

  it('non-interactive without --yes: refused before anything runs, naming --yes and --skip-preview (as pulumi)', async () => {
    const up = await cli(['up']);

    expect(up.status).toBe(1);
    expect(up.stderr).toContain('--yes or --skip-preview or --preview-only must be passed in to proceed when running in non-interactive mode');
    expect(up.stdout).not.toContain('Previewing');
    expect(calls(log)).toEqual([]);
  });

  it('-c and --config-path write the stack file before the run, and the program sees the values', async () => {
    const up = await cli(['up', '--yes', '-c', 'greeting=hello', '--config', 'nested.port=8080', '-c', 'nested.on=true', '--config-path', '--suppress-outputs']);

    expect(up.status, up.stderr).toBe(0);
    expect(stackFile().config).toEqual({ 'flags:greeting': 'hello', 'flags:nested': { port: 8080, on: true } });
    expect(await outputs()).toEqual({ greeting: 'hello', nested: { on: true, port: 8080 } });
    // --suppress-outputs: no Outputs section
    expect(up.stdout).not.toContain('Outputs:');
    expect(up.stdout).toContain('Resources:');
  });

  it('--config-file reads (and -c writes) that file instead of Pulumi.<stack>.yaml', async () => {
    const other = join(project, 'other.yaml');
    writeFileSync(other, 'config:\n  flags:greeting: from-file\n');

    const preview = await cli(['preview', '--json', '--config-file', other, '-c', 'extra=1']);

    expect(preview.status, preview.stderr).toBe(0);
    expect((JSON.parse(preview.stdout) as { config: Record<string, string> }).config).toEqual({ 'flags:greeting': 'from-file', 'flags:extra': '1' });
    expect(parseYaml(readFileSync(other, 'utf8'))).toEqual({ config: { 'flags:greeting': 'from-file', 'flags:extra': '1' } });
    expect(stackFile().config['flags:extra']).toBeUndefined();
  });

  it('--skip-preview without --yes proceeds without a preview in a non-interactive run (pulumi: yes = yes || skipPreview)', async () => {
    const up = await cli(['up', '--skip-preview', '-m', 'skipped the preview']);
    const history = JSON.parse((await cli(['stack', 'history', '--json'])).stdout) as { message: string }[];

    expect(up.status, up.stderr).toBe(0);
    expect(up.stdout).not.toContain('Previewing');
    expect(up.stdout).toContain('Updating');
    // -m/--message: recorded with the update
    expect(history[0]!.message).toBe('skipped the preview');
  });

  it('PULUMI_SKIP_CONFIRMATIONS=true stands for --yes on refresh (and up, destroy)', async () => {
    const refresh = await cli(['refresh', '--clear-pending-creates', '--suppress-permalink', '--skip-plugin-pre-install'], { PULUMI_SKIP_CONFIRMATIONS: 'true' });

    expect(refresh.status, refresh.stderr).toBe(0);
    expect(refresh.stdout).toContain('Refreshing');
    expect(refresh.stdout).not.toMatch(/permalink|View Live/i);
  });

  it('--show-sames lists unchanged resources; without it they are left out', async () => {
    const plain = await cli(['preview']);
    const sames = await cli(['preview', '--show-sames']);

    expect(plain.status).toBe(0);
    expect(plain.stdout).not.toContain('testprov:index:Thing a');
    expect(sames.stdout).toContain('testprov:index:Thing a');
    expect(sames.stdout).toContain('testprov:index:Thing b');
  });

  it('--debug (like -v) shows the program\'s debug diagnostics; --show-config shows the configuration first', async () => {
    const quiet = await cli(['preview']);
    const debug = await cli(['preview', '--debug', '--show-config']);
    const verbose = await cli(['preview', '-v', '3']);

    expect(quiet.stdout).not.toContain('a debug line from the program');
    expect(debug.stdout).toContain('a debug line from the program');
    expect(verbose.stdout).toContain('a debug line from the program');
    expect(debug.stdout).toMatch(/^Configuration:\n {4}flags:greeting: hello\n/m);
  });

  it('--show-replacement-steps shows both halves of a replacement; --expect-no-changes fails on changes', async () => {
    const expectNone = await cli(['preview', '-c', 'gen=2', '--expect-no-changes']);
    const up = await cli(['up', '--yes', '--show-replacement-steps']);

    expect(expectNone.status).toBe(1);
    expect(expectNone.stdout).toContain('error: no changes were expected but changes were proposed');
    expect(up.status, up.stderr).toBe(0);
    expect(up.stdout).toContain('testprov:index:Thing b create replacement');
    expect(up.stdout).toContain('testprov:index:Thing b created replacement');
    expect(up.stdout).toContain('testprov:index:Thing b deleted original');
  });

  it('--event-log writes every engine event, one JSON document a line, prelude first and summary last', async () => {
    const file = join(sandbox.root, 'events.jsonl');

    const preview = await cli(['preview', '--event-log', file]);
    const events = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

    expect(preview.status).toBe(0);
    expect(events[0]).toHaveProperty('preludeEvent');
    expect(events.at(-1)).toHaveProperty('summaryEvent');
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i));
  });

  it('preview --refresh previews against refreshed state: a resource deleted out of band is to be created again, nothing saved', async () => {
    const before = await exported();
    const a = before.deployment.resources!.find((r) => r.urn.endsWith('::a'))!;
    deleteFromWorld(world, a.id!);
    writeFileSync(log, '');

    const stale = await cli(['preview']);
    const refreshed = await cli(['preview', '--refresh']);
    const after = await exported();

    expect(stale.stdout).not.toContain('testprov:index:Thing a create');
    expect(calls(log).filter((c) => c.op === 'read').map((c) => c.urn.split('::').pop()).sort()).toEqual(['a', 'b']);
    expect(refreshed.status, refreshed.stderr).toBe(0);
    expect(refreshed.stdout).toContain('testprov:index:Thing a delete');
    expect(refreshed.stdout).toContain('testprov:index:Thing a create');
    expect(after).toEqual(before);
  });

  it('up --refresh refreshes, then recreates what is gone', async () => {
    const up = await cli(['up', '--yes', '--refresh']);
    const ids = (await exported()).deployment.resources!.filter((r) => r.type === 'testprov:index:Thing').map((r) => r.id!);

    expect(up.status, up.stderr).toBe(0);
    expect(ids.every((id) => worldIds(world).includes(id))).toBe(true);
  });

  it('refuses a flag it does not implement with exit 2 and the reason, before anything runs', async () => {
    writeFileSync(log, '');

    const up = await cli(['up', '--yes', '--ignore-protect']);

    expect(up.status).toBe(2);
    expect(up.stderr).toContain('error: --ignore-protect is not supported by stackyard: unprotect them first with `stackyard state unprotect`');
    expect(up.stdout).toBe('');
    expect(calls(log)).toEqual([]);
  });

  it('destroy --refresh (formerly a usage error) refreshes first; --remove then removes the stack and its config file', async () => {
    writeFileSync(log, '');

    const destroy = await cli(['destroy', '--refresh', '--remove'], { PULUMI_SKIP_CONFIRMATIONS: 'true' });
    const stacks = JSON.parse((await cli(['stack', 'ls', '--json'])).stdout) as unknown[];

    expect(destroy.status, destroy.stderr).toBe(0);
    expect(calls(log).some((c) => c.op === 'read')).toBe(true);
    expect(calls(log).filter((c) => c.op === 'delete')).toHaveLength(2);
    expect(destroy.stdout).toContain('The resources in the stack have been deleted, and the history and configuration removed.');
    expect(stacks).toEqual([]);
    expect(existsSync(join(project, 'Pulumi.dev.yaml'))).toBe(false);
  });

  it('--logflow hands --logtostderr and -v=<level> to plugins before the engine address; --logtostderr writes the debug log to stderr (as pulumi)', async () => {
    // an earlier scenario removed the stack (destroy --remove)
    await cli(['stack', 'init', 'dev']);
    const argvLog = join(sandbox.root, 'argv.log');
    const starts = () => readFileSync(argvLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]);

    const plain = await cli(['preview', '--logtostderr'], { TESTPROV_ARGV_LOG: argvLog });
    const plainStarts = starts();
    const flowed = await cli(['--logflow', 'preview', '--logtostderr', '-v', '3'], { TESTPROV_ARGV_LOG: argvLog });
    const flowedStarts = starts().slice(plainStarts.length);

    expect(plain.status, plain.stderr).toBe(0);
    expect(flowed.status, flowed.stderr).toBe(0);
    expect(plainStarts.length).toBeGreaterThan(0);
    for (const argv of plainStarts) expect(argv).toEqual([expect.stringMatching(/^127\.0\.0\.1:\d+$/)]);
    expect(flowedStarts.length).toBeGreaterThan(0);
    for (const argv of flowedStarts) expect(argv).toEqual(['--logtostderr', '-v=3', expect.stringMatching(/^127\.0\.0\.1:\d+$/)]);
    // without -v nothing is logged; at -v=3 each debug diagnostic is a line of Pulumi's JSON log
    expect(plain.stderr).not.toContain('"level"');
    const logLines = flowed.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; msg: string; v: number });
    expect(logLines.some((l) => l.level === 'INFO' && l.v === 3 && l.msg.startsWith('Registering resource: t=testprov:index:Thing'))).toBe(true);
  });

  it('up --refresh --run-program refreshes through the program before the update (the program runs in the refresh too)', async () => {
    await cli(['stack', 'init', 'dev']);
    const plainLog = join(sandbox.root, 'plain-refresh.jsonl');
    const programLog = join(sandbox.root, 'program-refresh.jsonl');
    const programRuns = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l.includes('a debug line from the program')).length;

    const plain = await cli(['up', '--yes', '--skip-preview', '--refresh', '--event-log', plainLog]);
    const throughProgram = await cli(['up', '--yes', '--skip-preview', '--refresh', '--run-program', '--event-log', programLog]);
    const preview = await cli(['preview', '--refresh', '--run-program']);

    expect(plain.status, plain.stderr).toBe(0);
    expect(throughProgram.status, throughProgram.stderr).toBe(0);
    expect(preview.status, preview.stderr).toBe(0);
    expect(programRuns(plainLog)).toBe(1);
    expect(programRuns(programLog)).toBe(2);
  });
});
