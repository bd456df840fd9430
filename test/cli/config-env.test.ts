/**
 * `stackyard config env init|add|rm|ls`, as `pulumi config env` edits a stack's import list (`environment:` in
 * `Pulumi.<stack>.yaml`) and moves its configuration into an environment, on `login --local` (needs `npm run build`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

describe('stackyard config env', () => {
  const sandbox = new CliSandbox();
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args);
  const stackFile = () => readFileSync(join(project, 'Pulumi.dev.yaml'), 'utf8');

  beforeAll(async () => {
    project = sandbox.project('envs', 'name: envs\nruntime: nodejs\n');
    expect((await cli('login', '--local')).status).toBe(0);
    expect((await cli('stack', 'init', 'dev')).status).toBe(0);
    writeFileSync(join(project, 'Pulumi.dev.yaml'), '# kept\nconfig:\n  envs:a: 1\n');
  });

  afterAll(() => removeSandboxes());

  it('adds to the end of the import list, lists it, and removes the last occurrence of a name', async () => {
    const empty = await cli('config', 'env', 'ls');
    const added = await cli('config', 'env', 'add', 'shared/base', 'prod', '--yes');
    const again = await cli('config', 'env', 'add', 'shared/base', '-y');
    const listed = await cli('config', 'env', 'list', '--json');
    const removed = await cli('config', 'env', 'rm', 'shared/base', '--yes');
    const table = await cli('config', 'env', 'ls');
    const output = await cli('config', 'env', 'ls', '--output', 'json');

    expect(empty.stdout).toBe('This stack configuration has no environments listed. Try adding one with `stackyard config env add <projectName>/<envName>`.\n');
    expect(added.status, added.stderr).toBe(0);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual(['shared/base', 'prod', 'shared/base']);
    expect(removed.status, removed.stderr).toBe(0);
    expect(table.stdout).toBe('ENVIRONMENTS\nshared/base\nprod\n');
    expect(JSON.parse(output.stdout)).toEqual(['shared/base', 'prod']);
    expect(stackFile()).toBe('# kept\nconfig:\n  envs:a: 1\nenvironment:\n  - shared/base\n  - prod\n');
  });

  it('saves nothing without --yes when it cannot ask', async () => {
    const before = stackFile();

    const refused = await cli('config', 'env', 'add', 'other');
    const removed = await cli('config', 'env', 'delete', 'prod');

    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('--yes must be passed in to proceed when running in non-interactive mode');
    expect(removed.status).toBe(1);
    expect(stackFile()).toBe(before);
  });

  it('lists the configuration after an edit, secrets shown with --show-secrets', async () => {
    await cli('config', 'set', '--secret', 'token', 's3cret');

    const hidden = await cli('config', 'env', 'add', 'extra', '--yes');
    const shown = await cli('config', 'env', 'rm', 'extra', '--yes', '--show-secrets');

    expect(hidden.status, hidden.stderr).toBe(0);
    // As Pulumi's listing: the import list is checked, and what the check reports follows the values.
    expect(hidden.stdout).toBe(
      'KEY    VALUE\na      1\ntoken  [secret]\n\nEnvironment diagnostics:\n' +
        '<yaml>:2:5: environment "shared/base" not found\n<yaml>:3:5: environment "prod" not found\n<yaml>:4:5: environment "extra" not found\n' +
        "The stack's environment does not define the `environmentVariables`, `files`, or `pulumiConfig` properties.\n" +
        "Without at least one of these properties, the environment will not affect the stack's behavior.\n\n",
    );
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toBe(
      'KEY    VALUE\na      1\ntoken  s3cret\n\nEnvironment diagnostics:\n' +
        '<yaml>:2:5: environment "shared/base" not found\n<yaml>:3:5: environment "prod" not found\n' +
        "The stack's environment does not define the `environmentVariables`, `files`, or `pulumiConfig` properties.\n" +
        "Without at least one of these properties, the environment will not affect the stack's behavior.\n\n",
    );
    expect(stackFile()).not.toContain('extra');
    await cli('config', 'rm', 'token');
  });
});

describe('stackyard config env init', () => {
  const sandbox = new CliSandbox();
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args);
  const stackFile = () => readFileSync(join(project, 'Pulumi.dev.yaml'), 'utf8');

  beforeAll(async () => {
    project = sandbox.project('moved', 'name: moved\nruntime: nodejs\n');
    expect((await cli('login', '--local')).status).toBe(0);
    expect((await cli('stack', 'init', 'dev')).status).toBe(0);
    for (const args of [['aws:region', 'us-west-2'], ['--secret', 'password', 'hunter2'], ['--path', 'tags.owners[0]', 'alice'], ['--path', 'tags.env', 'testing'], ['count', '3']]) {
      expect((await cli('config', 'set', ...args)).status).toBe(0);
    }
  });

  afterAll(() => removeSandboxes());

  it('refuses without --yes when it cannot ask, creating nothing', async () => {
    const before = stackFile();

    const refused = await cli('config', 'env', 'init');
    const listed = await cli('env', 'ls');

    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('--yes must be passed in to proceed when running in non-interactive mode');
    expect(refused.stdout).toBe('');
    expect(listed.stdout).toBe('');
    expect(stackFile()).toBe(before);
  });

  it('moves the configuration into <project>/<stack>, secrets as fn::secret, and imports it', async () => {
    const init = await cli('config', 'env', 'init', '--yes');
    const definition = await cli('env', 'get', 'moved/dev', '--definition', '--show-secrets');
    const password = await cli('config', 'get', 'password');

    expect(init.status, init.stderr).toBe(0);
    const [value, shown] = init.stdout.split('# Definition\n');
    expect(value).toBe(
      'Creating environment moved/dev for stack dev...\n# Value\n```json\n' +
        '{\n  "pulumiConfig": {\n    "aws:region": "us-west-2",\n    "moved:count": 3,\n    "moved:password": "[secret]",\n' +
        '    "moved:tags": {\n      "env": "testing",\n      "owners": [\n        "alice"\n      ]\n    }\n  }\n}\n```\n',
    );
    expect(shown).toMatch(/^```yaml\nvalues:\n  pulumiConfig:\n    aws:region: us-west-2\n    moved:count: 3\n    moved:password:\n      fn::secret:\n        ciphertext: \S+\n    moved:tags:\n      env: testing\n      owners:\n        - alice\n\n```\n$/);
    expect(init.stdout).not.toContain('hunter2');
    expect(definition.stdout).toBe(
      'values:\n  pulumiConfig:\n    aws:region: us-west-2\n    moved:count: 3\n    moved:password:\n      fn::secret: hunter2\n' +
        '    moved:tags:\n      env: testing\n      owners:\n        - alice\n',
    );
    expect(stackFile()).toBe('environment:\n  - moved/dev\n');
    expect(password.stdout).toBe('hunter2\n');
  });

  it('--env names the environment, --keep-config keeps the stack file\'s values, --show-secrets shows them', async () => {
    await cli('config', 'set', 'moved:extra', 'kept');

    const init = await cli('config', 'env', 'init', '--env', 'shared/base', '--keep-config', '--show-secrets', '-y');
    const again = await cli('config', 'env', 'init', '--env', 'shared/base', '-y');

    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).toBe(
      'Creating environment shared/base for stack dev...\n# Value\n```json\n{\n  "pulumiConfig": {\n    "moved:extra": "kept"\n  }\n}\n```\n' +
        '# Definition\n```yaml\nvalues:\n  pulumiConfig:\n    moved:extra: kept\n\n```\n',
    );
    expect(stackFile()).toBe('environment:\n  - moved/dev\n  - shared/base\nconfig:\n  moved:extra: kept\n');
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('creating environment:');
    expect(stackFile()).toBe('environment:\n  - moved/dev\n  - shared/base\nconfig:\n  moved:extra: kept\n');
  });
});
