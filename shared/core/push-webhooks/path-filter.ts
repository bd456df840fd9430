/**
 * `gitHub.paths` of the deployment settings (Pulumi's push-to-deploy path filter): a push deploys only when one of
 * the files it changed matches. Patterns are globs over repository paths — `*` within a folder name, `**` across
 * folders, `?` one character — and a pattern without glob characters also matches everything under that folder; a
 * pattern starting with `!` excludes what it matches.
 */
import { globSource } from '../glob.js';

/** A glob as an anchored regular expression over `/`-separated paths. */
function globExpression(pattern: string): RegExp {
  const source = globSource(pattern);
  const folder = /[*?]/.test(pattern) ? '' : '(?:/.*)?';
  return new RegExp(`^${source}${folder}$`);
}

/** Whether a push that changed `files` passes the filter `patterns` (an empty filter passes every push). */
export function pathsMatch(patterns: readonly string[], files: readonly string[]): boolean {
  const clean = (pattern: string) => pattern.replace(/^\.?\//, '').replace(/\/$/, '');
  const includes = patterns.filter((p) => !p.startsWith('!')).map((p) => globExpression(clean(p)));
  const excludes = patterns.filter((p) => p.startsWith('!')).map((p) => globExpression(clean(p.slice(1))));
  if (includes.length === 0 && excludes.length === 0) return true;
  return files.some((file) => (includes.length === 0 || includes.some((re) => re.test(file))) && !excludes.some((re) => re.test(file)));
}
