/**
 * Policy results under `--json`, as Pulumi prints them (pkg/backend/display/json.go): a preview's digest leaves every
 * policy event out (`ShowPreviewDigest` skips them), while the JSON lines of an update (`ShowJSONEvents`) carry each
 * policy engine event, a `policyLoadEvent` per pack first.
 */
import { describe, expect, it } from 'vitest';
import { pack, PolicyStack } from '../engine/conformance/policy-harness.js';

/** enforcementlevel's scenario 3: the pack advisory, its policies mandatory (pulumi-policy's integration test). */
const MANDATORY = 3;

describe('--json with a policy pack', () => {
  const stack = new PolicyStack('enforcementlevel');
  const packs = [{ path: pack('enforcementlevel') }];

  it('a preview\'s digest holds no policy section, as Pulumi\'s; a mandatory violation still fails it', async () => {
    const run = await stack.run('preview', MANDATORY, { json: true, policyPacks: packs });

    const digest = JSON.parse(run.out) as Record<string, unknown>;
    expect(run.code).toBe(1);
    expect(Object.keys(digest).sort()).toEqual(['changeSummary', 'config', 'duration', 'steps']);
    expect(run.out).not.toContain('validate-resource-violation-message');
  }, 120_000);

  it('an update\'s JSON lines carry the policy load, violation and summary events', async () => {
    const run = await stack.run('up', MANDATORY, { json: true, skipPreview: true, policyPacks: packs });

    const lines = run.out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const kinds = lines.map((l) => Object.keys(l).find((k) => k.endsWith('Event'))!);
    expect(run.code).toBe(1);
    expect(kinds.filter((k) => k === 'policyLoadEvent')).toHaveLength(1);
    expect(lines.find((l) => 'policyLoadEvent' in l)!.policyLoadEvent).toEqual({});
    expect(kinds.indexOf('policyLoadEvent')).toBeLessThan(kinds.indexOf('policyEvent'));
    const violation = lines.find((l) => 'policyEvent' in l)!.policyEvent as Record<string, unknown>;
    expect([violation.policyName, violation.enforcementLevel]).toEqual(['validate-resource', 'mandatory']);
    expect(kinds).toContain('policyAnalyzeSummaryEvent');
  }, 120_000);
});
