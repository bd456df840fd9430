import { describe, expect, it } from 'vitest';
import { judgeRequiredPacks } from './enforcement-check.js';

const pack = { name: 'tags', versionTag: '1.2.0' };
const analyzed = (name = 'tags', version = '1.2.0') => ({
  sequence: 3,
  policyAnalyzeSummaryEvent: { resourceUrn: 'urn:pulumi:dev::app::pulumi:pulumi:Stack::app-dev', policyPackName: name, policyPackVersion: version, policyPackVersionTag: version, passed: ['has-owner'] },
});
const violation = (enforcementLevel: string, policyName = 'has-owner') => ({
  sequence: 4,
  policyEvent: { message: 'no owner\n', color: 'never', policyName, policyPackName: 'tags', policyPackVersion: '1.2.0', policyPackVersionTag: '1.2.0', enforcementLevel },
});

describe('judgeRequiredPacks', () => {
  it('accepts events holding each required pack version’s analyze or analyze-stack summary and no mandatory violation', () => {
    const stackOnly = { policyAnalyzeStackSummaryEvent: { policyPackName: 'tags', policyPackVersion: '1.2.0', policyPackVersionTag: '1.2.0' } };

    expect(judgeRequiredPacks([pack], [analyzed(), violation('advisory')])).toBeUndefined();
    expect(judgeRequiredPacks([pack], [stackOnly])).toBeUndefined();
    expect(judgeRequiredPacks([], [{ sequence: 0, preludeEvent: { config: {} } }])).toBeUndefined();
  });

  it('names a required pack whose summary is absent, or present only for another version or pack', () => {
    const verdict = judgeRequiredPacks([pack, { name: 'sizes', versionTag: '3' }], [analyzed('tags', '1.1.0'), analyzed('sizes', '3')]);

    expect(verdict?.missing).toEqual([pack]);
    expect(verdict?.violated).toEqual([]);
    expect(verdict?.message).toBe('required policy pack tags@1.2.0 did not report its analysis');
  });

  it('names each pack and policy of a mandatory violation, even with every summary present', () => {
    const verdict = judgeRequiredPacks([pack], [analyzed(), violation('mandatory'), violation('mandatory', 'small'), violation('mandatory')]);

    expect(verdict?.missing).toEqual([]);
    expect(verdict?.violated).toEqual([{ pack, policies: ['has-owner', 'small'] }]);
    expect(verdict?.message).toBe('policy pack tags@1.2.0 reported a mandatory violation of has-owner, small');
  });

  it('reads a summary that carries only policyPackVersion, and ignores events of other shapes', () => {
    const legacy = { policyAnalyzeSummaryEvent: { policyPackName: 'tags', policyPackVersion: '1.2.0' } };

    expect(judgeRequiredPacks([pack], [null, 7, { policyEvent: null }, legacy])).toBeUndefined();
  });
});
