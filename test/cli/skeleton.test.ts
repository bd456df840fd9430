import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../cli/bin/stackyard.js', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

describe('bundled stackyard CLI (needs `npm run build`)', () => {
  it('prints the package version and exits 0', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

    const result = run('--version');

    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(pkg.version);
  });

  it('exits 2 on a usage error', () => {
    const result = run('--no-such-flag');

    expect(result.status).toBe(2);
    expect(result.stderr).toContain("unknown option '--no-such-flag'");
  });
});
