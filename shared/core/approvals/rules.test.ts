import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { effectiveRequirement, globMatches, ruleMatches, validateRequired, validateRule } from './rules.js';

const prod = { project: 'web', stack: 'prod-eu', tags: { env: 'production', team: 'edge' } };

describe('approval rules', () => {
  it('matches globs over project/stack: * within a segment, ** across, ? one character', () => {
    expect(globMatches('web/prod*', 'web/prod-eu')).toBe(true);
    expect(globMatches('*/prod-??', 'web/prod-eu')).toBe(true);
    expect(globMatches('*', 'web/prod-eu')).toBe(false);
    expect(globMatches('**', 'web/prod-eu')).toBe(true);
    expect(globMatches('web/prod', 'web/prod-eu')).toBe(false);
    expect(globMatches('w.b/*', 'web/prod')).toBe(false);
  });

  it('matches a rule only when each condition it has holds', () => {
    expect(ruleMatches({ required: 1 }, prod)).toBe(true);
    expect(ruleMatches({ required: 1, tag: 'env=production' }, prod)).toBe(true);
    expect(ruleMatches({ required: 1, tag: 'env=prod' }, prod)).toBe(false);
    expect(ruleMatches({ required: 1, stacks: 'web/*', tag: 'team=edge' }, prod)).toBe(true);
    expect(ruleMatches({ required: 1, stacks: 'api/*', tag: 'team=edge' }, prod)).toBe(false);
    expect(ruleMatches({ required: 1, tag: 'a=b=c' }, { ...prod, tags: { a: 'b=c' } })).toBe(true);
  });

  it("lets the stack's own setting win, else takes the largest matching rule, else none", () => {
    const rules = [
      { required: 1, stacks: 'web/*' },
      { required: 3, tag: 'env=production' },
      { required: 5, stacks: 'api/*' },
    ];

    expect(effectiveRequirement(prod, 2, rules)).toEqual({ required: 2, source: 'stack' });
    expect(effectiveRequirement(prod, undefined, rules)).toEqual({ required: 3, source: 'organization', rule: { tag: 'env=production' } });
    expect(effectiveRequirement(prod, 0, rules.slice(0, 1))).toEqual({ required: 1, source: 'organization', rule: { stacks: 'web/*' } });
    expect(effectiveRequirement({ project: 'db', stack: 'dev' }, undefined, rules)).toEqual({ required: 0, source: 'none' });
  });

  it('refuses requirements and rules it could not apply', () => {
    for (const bad of [-1, 11, 1.5, '2', null]) expect(() => validateRequired(bad)).toThrow(InvalidInputError);
    expect(() => validateRule({ required: 1, stacks: 'web/[a-z]' })).toThrow(/glob/);
    expect(() => validateRule({ required: 1, tag: 'no-equals' })).toThrow(/key=value/);
    expect(validateRule({ required: 2, stacks: '', tag: 'env=prod' })).toEqual({ required: 2, tag: 'env=prod' });
  });
});
