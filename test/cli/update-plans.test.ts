/**
 * `preview --save-plan` and `up --plan` through the bundled CLI on `login --local` (needs `npm run build`): the plan
 * file is Pulumi's format with stackyard's origin, and a plan the stack, program or configuration has moved on from
 * is refused before anything runs, unless `--allow-stale-plan` (docs/plans.md).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, TESTPROV_DIR, removeSandboxes } from './cli-harness.js';

const pulumiYaml = (name: string) => `name: ${name}\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`;
const program = (value: number) => `const pulumi = require('@pulumi/pulumi');\nnew pulumi.CustomResource('testprov:index:Thing', 'a', { value: ${value} });\n`;

describe('update plans on the local backend', () => {
  const sandbox = new CliSandbox();
  const env = { TESTPROV_WORLD: join(sandbox.root, 'world') };

  beforeAll(async () => {
    mkdirSync(env.TESTPROV_WORLD);
    await sandbox.run(sandbox.root, ['login', '--local']);
  });
  afterAll(removeSandboxes);

  it('refuses a plan made before another update, runs it with --allow-stale-plan, and refuses one made before a config change', async () => {
    const project = sandbox.project('plans', pulumiYaml('plans'), { 'index.js': program(1) });
    const cli = (...args: string[]) => sandbox.run(project, args, { env });
    await cli('stack', 'init', 'dev');
    await cli('up', '--yes');
    writeFileSync(join(project, 'index.js'), program(2));
    const planFile = join(project, 'plan.json');

    const saved = await cli('preview', '--save-plan', planFile);
    const other = await cli('up', '--yes');
    const stale = await cli('up', '--yes', '--plan', planFile);
    const versionsAfterRefusal = (JSON.parse((await cli('stack', 'history', '--json')).stdout) as unknown[]).length;
    const allowed = await cli('up', '--yes', '--plan', planFile, '--allow-stale-plan');
    const fresh = await cli('preview', '--save-plan', planFile);
    await cli('config', 'set', 'plans:extra', 'x');
    const configChanged = await cli('up', '--yes', '--plan', planFile);

    expect(saved.status, saved.stderr).toBe(0);
    expect(saved.stdout).toContain(`Update plan written to '${planFile}'`);
    expect(other.status, other.stderr).toBe(0);
    expect(stale.status).not.toBe(0);
    expect(stale.stdout + stale.stderr).toMatch(/the plan was made at version 1; the stack is at version 2 \(update by \S+ at \d{4}-[^)]+\): run preview --save-plan again/);
    expect(stale.stdout).not.toContain('Updating (dev)');
    expect(versionsAfterRefusal).toBe(2);
    expect(allowed.status, allowed.stdout + allowed.stderr).toBe(0);
    expect(fresh.status, fresh.stderr).toBe(0);
    expect(configChanged.status).not.toBe(0);
    expect(configChanged.stdout + configChanged.stderr).toContain("the stack's configuration changed since the plan was made: run preview --save-plan again");
  }, 240_000);

  it('writes Pulumi\'s plan format, with the origin in a field of its own, and applies a fresh plan', async () => {
    const project = sandbox.project('plans2', pulumiYaml('plans2'), { 'index.js': program(1) });
    const cli = (...args: string[]) => sandbox.run(project, args, { env });
    await cli('stack', 'init', 'dev');
    const planFile = join(project, 'plan.json');

    const saved = await cli('preview', '--save-plan', planFile);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { manifest: object; resourcePlans: Record<string, { steps: string[] }>; stackyard: Record<string, unknown> };
    const up = await cli('up', '--yes', '--plan', planFile);

    expect(saved.status, saved.stderr).toBe(0);
    expect(Object.keys(plan.manifest)).toEqual(['time', 'magic', 'version']);
    expect(plan.resourcePlans['urn:pulumi:dev::plans2::testprov:index:Thing::a']?.steps).toEqual(['create']);
    expect(Object.keys(plan.stackyard).sort()).toEqual(['checkpointDigest', 'configDigest', 'programDigest']);
    expect(up.status, up.stdout + up.stderr).toBe(0);
    expect(up.stdout).toContain('Updating (dev)');
  }, 120_000);

  it('up --strict keeps the update to the plan of its own preview: a program that changes between the two fails before the change, one that does not applies', async () => {
    const counted = `const pulumi = require('@pulumi/pulumi');\nconst fs = require('fs');\nconst file = process.env.COUNT_FILE;\nconst n = Number(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '0') + 1;\nfs.writeFileSync(file, String(n));\nnew pulumi.CustomResource('testprov:index:Thing', 'a', { value: process.env.DRIFT ? n : 1 });\n`;
    const project = sandbox.project('strict', pulumiYaml('strict'), { 'index.js': counted });
    const counter = { COUNT_FILE: join(sandbox.root, 'strict-count') };
    await sandbox.run(project, ['stack', 'init', 'dev'], { env });

    const drifting = await sandbox.run(project, ['up', '--yes', '--strict'], { env: { ...env, ...counter, DRIFT: '1' } });
    const afterDrift = JSON.parse((await sandbox.run(project, ['stack', 'export'], { env })).stdout) as { deployment: { resources?: { type: string }[] } };
    const steady = await sandbox.run(project, ['up', '--yes', '--strict'], { env: { ...env, ...counter } });
    const loose = await sandbox.run(project, ['up', '--yes'], { env: { ...env, ...counter, DRIFT: '1' } });

    expect(drifting.status).not.toBe(0);
    expect(drifting.stdout + drifting.stderr).toMatch(/violates plan: properties changed/);
    expect((afterDrift.deployment.resources ?? []).filter((r) => r.type === 'testprov:index:Thing')).toEqual([]);
    expect(steady.status, steady.stdout + steady.stderr).toBe(0);
    expect(loose.status, loose.stdout + loose.stderr).toBe(0);
  }, 180_000);
});
