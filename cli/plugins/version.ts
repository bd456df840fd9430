/** Semantic versions read the way Pulumi reads them (`semver.ParseTolerant`). */
import semver from 'semver';

/**
 * Parses `v1.2`, ` 1.2.3 `, `1.2.3-alpha.1+build` and the like: a leading `v` and surrounding blanks are dropped and
 * missing minor/patch numbers count as 0 (only when there is no pre-release or build part). Returns the normalized
 * version (build metadata kept), or `undefined`.
 */
export function parseTolerant(input: string): string | undefined {
  let s = input.trim().replace(/^v/, '');
  if (!/[-+]/.test(s)) {
    const parts = s.split('.');
    if (parts.length > 0 && parts.length < 3 && parts.every((p) => /^\d+$/.test(p))) s = [...parts, '0', '0'].slice(0, 3).join('.');
  }
  const parsed = semver.parse(s);
  if (!parsed) return undefined;
  return parsed.build.length ? `${parsed.version}+${parsed.build.join('.')}` : parsed.version;
}

/** Orders versions ascending (build metadata ignored, as semver says). */
export function compareVersions(a: string, b: string): number {
  return semver.compare(a, b);
}

/** Equal as semantic versions. */
export function sameVersion(a: string, b: string): boolean {
  return semver.eq(a, b);
}

/** True for versions with a pre-release part (`1.0.0-alpha`). */
export function isPrerelease(v: string): boolean {
  return (semver.prerelease(v) ?? []).length > 0;
}

/** True when `v` satisfies a semver range such as `>=1.0.0 <2.0.0` or `1.x` (used by `plugin rm`). */
export function satisfiesRange(v: string, range: string): boolean {
  return semver.satisfies(v, range, { includePrerelease: true });
}

/** True when `range` parses as a semver range. */
export function isValidRange(range: string): boolean {
  return semver.validRange(range) !== null;
}
