/**
 * A program folder's `.gitignore` (the one at its root), read the way git reads one for the paths `deployment run
 * --source` packs: blank lines and `#` comments skipped; `!` re-includes; a trailing `/` matches folders only; a
 * pattern with a `/` elsewhere is anchored at the root, one without matches a name at any depth; `*`, `?` and `**`.
 * Not read: `.gitignore` files in subfolders, `.git/info/exclude`, the user's global excludes, `\` escapes.
 */
import { globSource } from '../../shared/core/glob.js';

interface Rule {
  pattern: RegExp;
  negated: boolean;
  foldersOnly: boolean;
  anchored: boolean;
}

function parseRule(line: string): Rule | undefined {
  let text = line.replace(/\s+$/, '');
  if (text === '' || text.startsWith('#')) return undefined;
  const negated = text.startsWith('!');
  if (negated) text = text.slice(1);
  const foldersOnly = text.endsWith('/');
  if (foldersOnly) text = text.slice(0, -1);
  const anchored = text.includes('/');
  if (text.startsWith('/')) text = text.slice(1);
  if (text === '') return undefined;
  return { pattern: new RegExp(`^${globSource(text)}$`), negated, foldersOnly, anchored };
}

/** Whether a path (relative to the root, `/`-separated) is ignored; the last rule that matches it decides. */
export type IgnoreTest = (path: string, isFolder: boolean) => boolean;

/** The test for a `.gitignore`'s text (`''` when there is none). */
export function ignoreRules(text: string): IgnoreTest {
  const rules = text.split(/\r?\n/).flatMap((line) => parseRule(line) ?? []);
  return (path, isFolder) => {
    const name = path.slice(path.lastIndexOf('/') + 1);
    let ignored = false;
    for (const rule of rules) {
      if (rule.foldersOnly && !isFolder) continue;
      if (rule.pattern.test(rule.anchored ? path : name)) ignored = !rule.negated;
    }
    return ignored;
  };
}
