/**
 * Every dependency with an install script is reviewed in package.json's `allowScripts` (npm 11.16 and later warn at
 * the end of `npm ci` about any that is not; npm 12 skips their scripts), with the decision docs/security.md explains.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version: string;
  resolved?: string;
  hasInstallScript?: boolean;
}

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as { packages: Record<string, LockEntry> };

/** The packages of the lock file whose install scripts npm runs (or, from npm 12, skips unless allowed). */
function withInstallScripts(): { name: string; entry: LockEntry }[] {
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
    .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), entry }));
}

/**
 * npm's matching (arborist's script-allowed.js): a name-only key covers every version; `name@version` only when the
 * version can be read from the lock's `resolved` URL, except that a pinned deny still denies without one.
 */
function decision(name: string, entry: LockEntry): boolean | undefined {
  const allow = pkg.allowScripts ?? {};
  const pinned = allow[`${name}@${entry.version}`];
  return allow[name] ?? (entry.resolved || pinned === false ? pinned : undefined);
}

describe('install scripts of dependencies', () => {
  it('covers every dependency that has one, so a fresh npm ci prints no advisory', () => {
    const uncovered = withInstallScripts().filter(({ name, entry }) => decision(name, entry) === undefined);

    expect(uncovered).toEqual([]);
  });

  it('allows esbuild and denies protobufjs, each by name', () => {
    const protobufjs = lock.packages['node_modules/protobufjs']!;

    // esbuild's script checks its platform binary (and fetches it when optional dependencies were left out). By name:
    // the lock file records no `resolved` URLs, and npm refuses a pinned allow (`esbuild@0.28.2`) whose version it
    // cannot read from one, so a pin would leave esbuild unreviewed.
    expect(pkg.allowScripts).toHaveProperty(['esbuild'], true);
    // protobufjs's script only warns a package that lists protobufjs itself with a version not starting with '~'.
    expect(protobufjs.hasInstallScript).toBe(true);
    expect(pkg.allowScripts).toHaveProperty(['protobufjs'], false);
  });
});
