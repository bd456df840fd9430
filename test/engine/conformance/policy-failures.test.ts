/**
 * Policy packs that cannot run: each fails the run with an error naming the pack before the program runs (nothing is
 * created), and the pairing rules of `--policy-pack-config`, as the `pulumi` CLI checks them.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toOperationFlags } from '../../../cli/commands/engine-flags.js';
import { TestStack } from '../engine-harness.js';
import { pack, PolicyStack, POLICY_FIXTURES } from './policy-harness.js';

describe('a policy pack that cannot run', () => {
  const stack = new PolicyStack('enforcementlevel');

  it('a folder without PulumiPolicy.yaml fails the preview, naming the folder', async () => {
    const missing = join(POLICY_FIXTURES, 'program');
    const run = await stack.run('preview', 1, { policyPacks: [{ path: missing }] });

    expect(run.code).toBe(1);
    expect(run.out).toContain(`failed to load Pulumi policy project located at "${missing}": no PulumiPolicy.yaml there`);
    expect(run.created).toEqual([]);
  }, 120_000);

  it('a pack printing garbage instead of its port fails the update and nothing is created', async () => {
    const run = await stack.run('up', 1, { skipPreview: true, policyPacks: [{ path: pack('garbage') }] });

    expect(run.code).toBe(1);
    expect(run.out).toContain(`policy pack "${pack('garbage')}" failed to start: plugin "${pack('garbage')}" (analyzer) printed "this is not a port" instead of a port`);
    expect(run.created).toEqual([]);
  }, 120_000);

  it('a pack that never reports its port times out, naming the pack', async () => {
    const engine = new TestStack(join(POLICY_FIXTURES, 'program'), 'policy-tests');
    const config = { 'policy-tests:suite': { value: 'enforcementlevel', secret: false } };

    const run = await engine.run('preview', config, { policyPacks: [{ path: pack('hangs') }], timeouts: { callMs: 5_000, operationMs: 5_000, launchMs: 1_500 } });

    expect(run.result.ok).toBe(false);
    expect(run.result.errors).toEqual([`policy pack "${pack('hangs')}" failed to start: plugin "${pack('hangs')}" (analyzer) did not report a port within 1500 ms`]);
    expect(run.steps).toEqual([]);
  }, 120_000);

  it('a config file for a pack that is missing fails before any pack starts', async () => {
    const run = await stack.run('preview', 1, { policyPacks: [{ path: pack('enforcementlevel'), configFile: join(POLICY_FIXTURES, 'nothing-here.json') }] });

    expect(run.code).toBe(1);
    expect(run.out).toContain(`could not read policy pack config file ${join(POLICY_FIXTURES, 'nothing-here.json')}`);
  }, 120_000);
});

describe('--policy-pack-config pairing', () => {
  it('pairs each config file with the pack at its position', () => {
    const { flags } = toOperationFlags({ policyPack: ['a', 'b'], policyPackConfig: ['a.json', 'b.json'] }, {});

    expect(flags.policyPacks).toEqual([
      { path: 'a', configFile: 'a.json' },
      { path: 'b', configFile: 'b.json' },
    ]);
  });

  it('refuses config files without packs, or a different number of them', () => {
    expect(() => toOperationFlags({ policyPackConfig: ['a.json'] }, {})).toThrow('"--policy-pack-config" must be specified with "--policy-pack"');
    expect(() => toOperationFlags({ policyPack: ['a', 'b'], policyPackConfig: ['a.json'] }, {})).toThrow('the number of "--policy-pack-config" flags must match the number of "--policy-pack" flags');
  });
});
