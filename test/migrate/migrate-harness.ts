/** Shared checks of the migration tests: a project sandbox, what a migrated stack must do, scans and snapshots. */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { CliSandbox, type CliResult } from '../cli/cli-harness.js';
import { PROGRAM, projectYaml, type FixtureStack } from './diy-fixtures.js';

/** A user's machine: the projects' folders (program + Pulumi.yaml) where the stack files live. */
export class UserProjects {
  readonly sandbox: CliSandbox;
  readonly dirs: Record<string, string>;

  constructor(
    readonly world: string,
    env: NodeJS.ProcessEnv = {},
  ) {
    this.sandbox = new CliSandbox(env);
    this.dirs = {
      web: this.sandbox.project('web', projectYaml('web'), { 'index.js': PROGRAM }),
      api: this.sandbox.project('api', projectYaml('api'), { 'index.js': PROGRAM }),
    };
  }

  run(project: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
    return this.sandbox.run(this.dirs[project]!, args, { env: { TESTPROV_WORLD: this.world, ...env } });
  }

  /** `migrate` from the web project, with the api project's stack files too. */
  migrate(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
    return this.run('web', ['migrate', ...args, '--project-dir', this.dirs.api!], env);
  }
}

/** Secrets readable, outputs shown, the program previews with no changes, history and tags carried over. */
export async function expectMigrated(user: UserProjects, fixture: FixtureStack, stackName = fixture.stack): Promise<void> {
  const run = (...args: string[]) => user.run(fixture.project, [...args, '-s', stackName]);
  const secret = await run('config', 'get', 'password');
  const output = await run('stack', 'output', 'password', '--show-secrets');
  const name = await run('stack', 'output', 'name');
  const preview = await run('preview', '--expect-no-changes');
  const history = JSON.parse((await run('stack', 'history', '--json', '--page-size', '100')).stdout) as { kind: string }[];
  const tags = JSON.parse((await run('stack', 'tag', 'ls', '--json')).stdout) as Record<string, string>;
  const stackFile = readFileSync(join(user.dirs[fixture.project]!, `Pulumi.${fixture.stack}.yaml`), 'utf8');

  expect(secret.stdout, `${fixture.project}/${fixture.stack}: ${secret.stderr}`).toBe(`${fixture.password}\n`);
  expect(output.stdout, output.stderr).toBe(`${fixture.password}\n`);
  expect(name.stdout).toBe(`${fixture.stack}-v2\n`);
  expect(preview.status, `preview of ${fixture.project}/${stackName}: ${preview.stdout}\n${preview.stderr}`).toBe(0);
  expect(history).toHaveLength(fixture.historyEntries);
  expect(tags).toMatchObject({ team: `team-${fixture.project}`, 'pulumi:project': fixture.project });
  expect(tags['stackyard:migrated-from']).toMatch(/\S/);
  expect(stackFile).not.toMatch(/encryptionsalt|secretsprovider|encryptedkey/);
  expect(stackFile).toContain('# migrated from Pulumi');
}

/** Every file under `roots` (gzip objects also inflated) that contains one of `secrets`. */
export function plaintextHits(roots: string[], secrets: string[]): string[] {
  const hits: string[] = [];
  const visit = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      if (path.endsWith('node_modules')) return;
      for (const name of readdirSync(path)) visit(join(path, name));
      return;
    }
    const bytes = readFileSync(path);
    const texts = [bytes.toString('utf8')];
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
      try {
        texts.push(gunzipSync(bytes).toString('utf8'));
      } catch {
        // Not a whole gzip stream: the raw bytes were checked.
      }
    }
    for (const secret of secrets) if (texts.some((text) => text.includes(secret))) hits.push(`${path}: ${secret}`);
  };
  for (const root of roots) if (existsSync(root)) visit(root);
  return hits;
}

/** Path → SHA-256 of every file under `roots` (lock and temp folders of the local adapter, and the CLI's parse cache, left out). */
export function snapshot(roots: string[]): Record<string, string> {
  const files: Record<string, string> = {};
  const visit = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      if (/\/(node_modules|locks|tmp|cache)$/.test(path)) return;
      for (const name of readdirSync(path)) visit(join(path, name));
      return;
    }
    files[path] = createHash('sha256').update(readFileSync(path)).digest('hex');
  };
  for (const root of roots) visit(root);
  return files;
}
