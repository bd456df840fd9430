import { describe, expect, it } from 'vitest';
import { claimText, matchesClaimPattern } from './claim-pattern.js';

describe('matchesClaimPattern', () => {
  it.each([
    ['repo:acme/infra:ref:refs/heads/main', 'repo:acme/infra:ref:refs/heads/main', true],
    ['repo:acme/infra:ref:refs/heads/main', 'repo:acme/infra:ref:refs/heads/*', true],
    ['repo:acme/infra:ref:refs/heads/feature/x', 'repo:acme/infra:ref:refs/heads/*', true],
    ['repo:acme/infra:ref:refs/tags/v1', 'repo:acme/infra:ref:refs/heads/*', false],
    ['repo:acme/other:environment:prod', 'repo:acme/*:environment:prod', true],
    ['repo:acme/other:environment:production', 'repo:acme/*:environment:prod', false],
    ['repo:acme-evil/infra:ref:refs/heads/main', 'repo:acme/*', false],
    ['project_path:group/proj:ref_type:branch:ref:main', 'project_path:group/proj:ref_type:branch:ref:*', true],
    ['abc', 'a*b*c', true],
    ['ac', 'a*b*c', false],
    ['aXbYbc', 'a*b*c', true],
    ['abab', 'ab*ab', true],
    ['aba', 'ab*ab', false],
    ['', '*', true],
    ['anything', '*', true],
    ['main', 'Main', false],
  ])('%s against %s → %s', (value, pattern, expected) => {
    expect(matchesClaimPattern(value, pattern)).toBe(expected);
  });

  it('reads strings, numbers and booleans; nothing else', () => {
    expect(claimText('x')).toBe('x');
    expect(claimText(42)).toBe('42');
    expect(claimText(true)).toBe('true');
    expect(claimText(['a'])).toBeUndefined();
    expect(claimText({ a: 1 })).toBeUndefined();
    expect(claimText(undefined)).toBeUndefined();
  });
});
