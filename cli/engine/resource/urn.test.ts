import { describe, expect, it } from 'vitest';
import { createUrn, packageOfType, parseProviderRef, urnName, urnType } from './urn.js';

describe('createUrn', () => {
  it('does not prefix children of the stack with the stack type', () => {
    const stackUrn = createUrn('dev', 'proj', undefined, 'pulumi:pulumi:Stack', 'proj-dev');
    expect(createUrn('dev', 'proj', stackUrn, 'test:index:Thing', 'a')).toBe('urn:pulumi:dev::proj::test:index:Thing::a');
  });

  it('nests qualified types under component parents', () => {
    const parent = createUrn('dev', 'proj', undefined, 'my:index:Comp', 'c');
    const child = createUrn('dev', 'proj', parent, 'test:index:Thing', 'a');
    expect(child).toBe('urn:pulumi:dev::proj::my:index:Comp$test:index:Thing::a');
    expect(createUrn('dev', 'proj', child, 'x:y:Z', 'n')).toBe('urn:pulumi:dev::proj::my:index:Comp$test:index:Thing$x:y:Z::n');
    expect(urnType(child)).toBe('test:index:Thing');
    expect(urnName(child)).toBe('a');
  });

  it('reads packages and provider references', () => {
    expect(packageOfType('pulumi:providers:aws')).toBe('aws');
    expect(packageOfType('aws:s3/bucket:Bucket')).toBe('aws');
    expect(parseProviderRef('urn:pulumi:d::p::pulumi:providers:aws::default::abc-1')).toEqual({
      urn: 'urn:pulumi:d::p::pulumi:providers:aws::default',
      id: 'abc-1',
    });
  });
});
