/**
 * `stackyard stack diff [<from> [<to>]]` through the bundled CLI, on `stackyard serve` and on `login --local` (both
 * call the same core): Pulumi's diff rendering of only what changed, `--json`, `--show-secrets`, and errors that say
 * what to do; a 5,000-resource stack whose versions differ in 3 resources prints those 3 (needs `npm run build`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-harness.js';
import { serveAndLocalBackends } from './serve-and-local.js';

const SIG = '4dabf18193072939515e22adb298388d';
const SECRET = '1b47061264138c4ac30d75fd1eb44270';
const TYPE = 'random:index:Bucket';

type Bucket = { id: string; inputs?: Record<string, unknown> };

/** A deployment of `demo/<stack>` holding these buckets (outputs equal inputs). */
function deploymentOf(stack: string, buckets: Record<string, Bucket>) {
  const resources = Object.entries(buckets).map(([name, b]) => ({
    urn: `urn:pulumi:${stack}::demo::${TYPE}::${name}`,
    custom: true,
    id: b.id,
    type: TYPE,
    inputs: b.inputs ?? {},
    outputs: b.inputs ?? {},
  }));
  return { version: 3, deployment: { manifest: { time: '2026-01-01T00:00:00.000Z', magic: '', version: '' }, resources } };
}

const backends = serveAndLocalBackends();

describe.each(backends)('stack diff on $name', (backend) => {
  async function stackWith(stack: string, versions: Record<string, Bucket>[]) {
    const sandbox = new CliSandbox();
    const project = sandbox.project('demo', 'name: demo\nruntime: nodejs\n');
    const cli = (...args: string[]) => sandbox.run(project, args);
    await backend.login(sandbox, project);
    await cli('stack', 'init', stack);
    for (const [i, buckets] of versions.entries()) {
      const file = join(sandbox.root, `v${i}.json`);
      writeFileSync(file, JSON.stringify(deploymentOf(stack, buckets)));
      const imported = await cli('stack', 'import', '--file', file);
      expect(imported.status, imported.stderr).toBe(0);
    }
    return cli;
  }

  it('prints the changes between the last two versions in Pulumi diff form, and --json the same changes', async () => {
    const secret = { [SIG]: SECRET, plaintext: '"s3cr3t"' };
    const cli = await stackWith('dev', [
      { same: { id: 's1', inputs: { size: 1 } }, edit: { id: 'e1', inputs: { tags: { env: 'dev', team: 'web' }, key: secret } }, swap: { id: 'w1' }, gone: { id: 'g1' } },
      { same: { id: 's1', inputs: { size: 1 } }, edit: { id: 'e1', inputs: { tags: { env: 'prod', team: 'web' }, key: { [SIG]: SECRET, plaintext: '"n3w"' } } }, swap: { id: 'w2' }, fresh: { id: 'f1' } },
    ]);

    const text = await cli('stack', 'diff');
    const json = await cli('stack', 'diff', '1', '2', '--json');
    const revealed = await cli('stack', 'diff', '--show-secrets');

    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout.replace(/^Changes of \w+\/demo\/dev /, 'Changes of <org>/demo/dev ')).toBe(
      [
        'Changes of <org>/demo/dev from version 1 to version 2:',
        `    + ${TYPE}: (create)`,
        `        [urn=urn:pulumi:dev::demo::${TYPE}::fresh]`,
        `    +-${TYPE}: (replace)`,
        '        [id=w1]',
        `        [urn=urn:pulumi:dev::demo::${TYPE}::swap]`,
        `    ~ ${TYPE}: (update)`,
        `        [urn=urn:pulumi:dev::demo::${TYPE}::edit]`,
        '      ~ key : [secret] => [secret]',
        '      ~ tags: {',
        '          ~ env: "dev" => "prod"',
        '        }',
        '        --outputs:--',
        '      ~ key : [secret] => [secret]',
        '      ~ tags: {',
        '          ~ env: "dev" => "prod"',
        '        }',
        `    - ${TYPE}: (delete)`,
        '        [id=g1]',
        `        [urn=urn:pulumi:dev::demo::${TYPE}::gone]`,
        'Resources:',
        '    1 added, 1 replaced, 1 updated, 1 removed',
        '',
      ].join('\n'),
    );
    expect(text.stdout).not.toContain('same');
    expect(JSON.parse(json.stdout)).toMatchObject({
      from: 1,
      to: 2,
      added: [{ id: 'f1' }],
      removed: [{ id: 'g1' }],
      replaced: [{ id: 'w2', oldId: 'w1', diffs: [] }],
      updated: [{ type: TYPE, diffs: [{ path: ['inputs', 'tags', 'env'], kind: 'update', old: 'dev', new: 'prod' }, { path: ['inputs', 'key'], old: '[secret]' }, {}, {}] }],
    });
    expect(revealed.stdout).toContain('~ key : "s3cr3t" => "n3w"');
  });

  it('says what to do about an unknown version and a version that is not a number', async () => {
    const cli = await stackWith('qa', [{ a: { id: 'a1' } }]);

    const unknown = await cli('stack', 'diff', '1', '4');
    const bad = await cli('stack', 'diff', 'latest');

    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/Version 4 of stack '\w+\/demo\/qa' not found: the stack is at version 1/);
    expect(unknown.stderr).toContain("run 'stackyard stack history' to see its versions");
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("invalid from version 'latest'");
  });

  it('prints only the 3 changed resources of a 5,000-resource stack', async () => {
    const before: Record<string, Bucket> = {};
    for (let i = 0; i < 5000; i += 1) before[`b${i}`] = { id: `id-${i}`, inputs: { index: i, tags: { owner: 'ops' } } };
    const after = { ...before, b10: { id: 'id-10', inputs: { index: 10, tags: { owner: 'dev' } } }, b20: { id: 'id-20-new', inputs: { index: 20, tags: { owner: 'ops' } } } };
    delete (after as Record<string, Bucket>).b30;
    const cli = await stackWith('big', [before, after]);

    const diff = await cli('stack', 'diff');

    expect(diff.status, diff.stderr).toBe(0);
    expect(diff.stdout.split('\n').filter((line) => line.includes('[urn='))).toEqual([
      `        [urn=urn:pulumi:big::demo::${TYPE}::b20]`,
      `        [urn=urn:pulumi:big::demo::${TYPE}::b10]`,
      `        [urn=urn:pulumi:big::demo::${TYPE}::b30]`,
    ]);
    expect(diff.stdout).toContain('1 replaced, 1 updated, 1 removed');
  });
});
