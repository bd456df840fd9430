/**
 * A deployment run's program for the runner tests: offline installs, since the program's only npm dependency is a
 * package inside the repository (`file:./lib/greeting`), so `npm ci` installs it from its lock file without any
 * registry; `@pulumi/pulumi` comes from this repository's node_modules through NODE_PATH in the run's settings.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TESTPROV_DIR } from '../cli/cli-harness.js';

/** The program's files, with a package-lock.json npm wrote for them (offline: the one dependency is in the repo). */
export function programFiles(index: string): Record<string, string> {
  const files: Record<string, string> = {
    'Pulumi.yaml': `name: runapp\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`,
    'index.js': index,
    'package.json': JSON.stringify({ name: 'runapp', version: '1.0.0', private: true, dependencies: { greeting: 'file:./lib/greeting' } }),
    'lib/greeting/package.json': JSON.stringify({ name: 'greeting', version: '1.0.0', main: 'index.js' }),
    'lib/greeting/index.js': "exports.greeting = () => 'hello from the repository';\n",
  };
  const dir = mkdtempSync(join(tmpdir(), 'stackyard-lock-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    execFileSync('npm', ['install', '--package-lock-only', '--offline', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'ignore' });
    files['package-lock.json'] = readFileSync(join(dir, 'package-lock.json'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return files;
}
