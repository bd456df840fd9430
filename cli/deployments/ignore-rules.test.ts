import { describe, expect, it } from 'vitest';
import { ignoreRules } from './ignore-rules.js';

describe('ignoreRules (a program folder .gitignore)', () => {
  const ignored = ignoreRules('# outputs\n/build/\n*.log\n!keep.log\ndocs/**/*.tmp\ncache/\n\n');

  it('matches an unanchored name at any depth, an anchored path only at the root, folders-only rules only on folders', () => {
    expect(ignored('a.log', false)).toBe(true);
    expect(ignored('lib/deep/b.log', false)).toBe(true);
    expect(ignored('build', true)).toBe(true);
    expect(ignored('lib/build', true)).toBe(false);
    expect(ignored('cache', true)).toBe(true);
    expect(ignored('lib/cache', true)).toBe(true);
    expect(ignored('cache', false)).toBe(false);
  });

  it('lets a later ! rule re-include, and ** span folders', () => {
    expect(ignored('keep.log', false)).toBe(false);
    expect(ignored('docs/x.tmp', false)).toBe(true);
    expect(ignored('docs/a/b/x.tmp', false)).toBe(true);
    expect(ignored('x.tmp', false)).toBe(false);
    expect(ignored('index.js', false)).toBe(false);
  });
});
