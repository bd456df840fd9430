/**
 * `stackyard env …` (ESC's grammar, flags and output) against a real `stackyard serve` and `login --local`: create,
 * read in every format, set and remove values, open, run a command with the environment, edit through $EDITOR (a
 * broken definition refused with its diagnostics, a concurrent save refused by its etag), versions and tags, diff,
 * clone and removal (needs `npm run build`).
 */
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-harness.js';
import { serveAndLocalBackends } from './serve-and-local.js';

const SECRET = 'hunter2-sesame-42';
const DEFINITION =
  'values:\n  region: eu-west-1\n  count: 3\n  password:\n    fn::secret: ' +
  SECRET +
  '\n  environmentVariables:\n    REGION: ${region}\n    PASS: ${password}\n  files:\n    KEYFILE: key-${region}\n';

describe.each(serveAndLocalBackends())('stackyard env on $name', (backend) => {
  const sandbox = new CliSandbox();
  let project: string;
  let org: string;
  const cli = (args: string[], input?: string, env?: NodeJS.ProcessEnv) => sandbox.run(project, args, { input, env });
  const ok = async (...args: string[]) => {
    const result = await cli(args);
    expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  };

  it('creates an environment from a file and shows it as ESC does, secrets hidden unless asked', async () => {
    project = sandbox.project('envcli', 'name: envcli\nruntime: nodejs\n');
    await backend.login(sandbox, project);
    org = backend.name === 'serve' ? 'acme' : 'organization';
    if (backend.name === 'serve') {
      await ok('org', 'create', org);
      await ok('org', 'set-default', org);
    }
    const init = await cli(['env', 'init', `${org}/app/dev`, '-f', '-'], DEFINITION);
    const get = await ok('env', 'get', 'app/dev');
    const member = await ok('env', 'get', '--env', 'app/dev', 'region');
    const revealed = await ok('env', 'get', 'app/dev', 'password', '--value', 'string', '--show-secrets');
    const hidden = await ok('env', 'get', 'app/dev', 'password', '--value', 'string');
    const dotenv = await ok('env', 'get', 'app/dev', '--value', 'dotenv');
    const definition = await ok('env', 'get', 'app/dev', '--definition');
    const both = await cli(['env', 'get', 'app/dev', '--definition', '--value', 'json']);
    const shellWithPath = await cli(['env', 'get', 'app/dev', 'region', '--value', 'shell']);

    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).toBe(`Environment created: ${org}/app/dev\n`);
    expect(get).toMatch(
      /^# Value\n```json\n\{\n  "count": 3,\n  "environmentVariables": \{\n    "PASS": "\[secret\]",\n    "REGION": "eu-west-1"\n  \},\n  "files": \{\n    "KEYFILE": "key-eu-west-1"\n  \},\n  "password": "\[secret\]",\n  "region": "eu-west-1"\n\}\n```\n# Definition\n```yaml\nvalues:\n  region: eu-west-1\n/,
    );
    expect(get).toContain('      ciphertext: ');
    expect(get).not.toContain(SECRET);
    expect(member).toMatch(/^# Value\n```json\n"eu-west-1"\n```\n# Definition\n```yaml\neu-west-1\n\n```\n\n# Defined at\n- \S+:2:11\n\n$/);
    expect(revealed).toBe(`${SECRET}\n`);
    expect(hidden).toBe('[secret]\n');
    expect(dotenv).toBe('PASS="[secret]"\nREGION="eu-west-1"\nKEYFILE="[unknown]"\n');
    expect(definition).toContain('  count: 3\n  password:\n    fn::secret:\n      ciphertext: ');
    expect(both.stderr).toContain('`--value` and `--definition` flags cannot be used together');
    expect(shellWithPath.stderr).toContain("output format 'shell' may not be used with a property path");
  });

  it('opens the environment in each format, secrets revealed', async () => {
    const json = await ok('env', 'open', `${org}/app/dev`);
    const string = await ok('env', 'open', '--env', 'app/dev', 'environmentVariables', '--format', 'string');
    const shell = await ok('env', 'open', 'app/dev', '-f', 'shell');
    const detailed = JSON.parse(await ok('env', 'open', 'app/dev', 'count', '-f', 'detailed', '--lifetime', '15m'));
    const unknown = await cli(['env', 'open', 'app/dev', '-f', 'xml']);
    const badLifetime = await cli(['env', 'open', 'app/dev', '-l', 'soon']);

    expect(JSON.parse(json)).toEqual({
      count: 3,
      environmentVariables: { PASS: SECRET, REGION: 'eu-west-1' },
      files: { KEYFILE: 'key-eu-west-1' },
      password: SECRET,
      region: 'eu-west-1',
    });
    expect(string).toBe(`"PASS"="${SECRET}","REGION"="eu-west-1"\n`);
    const file = /^export KEYFILE="(.+)"$/m.exec(shell)![1]!;
    expect(shell).toContain(`export PASS="${SECRET}"\nexport REGION="eu-west-1"\nexport KEYFILE=`);
    expect(readFileSync(file, 'utf8')).toBe('key-eu-west-1');
    expect(detailed).toMatchObject({ value: 3, trace: { def: { begin: { line: 3, column: 10 } } } });
    expect(unknown.stderr).toContain('unknown output format "xml"');
    expect(badLifetime.stderr).toContain('invalid argument "soon" for "-l, --lifetime" flag');
  });

  it('runs a command with the variables and files, secrets filtered from its output, files removed after', async () => {
    const script = 'echo "$REGION $PASS"; cat "$KEYFILE"; echo; stat -c %a "$KEYFILE"; echo "$KEYFILE"';
    const run = await cli(['env', 'run', 'app/dev', '--', 'sh', '-c', script]);
    const interactive = await cli(['env', 'run', 'app/dev', '-i', '--', 'sh', '-c', 'echo "$PASS"']);
    const interpolated = await cli(['env', 'run', '--env', 'app/dev', '--', 'echo', '${region}-${count}']);
    const noEnv = await cli(['env', 'run', '--', 'echo', 'hi']);
    const failing = await cli(['env', 'run', 'app/dev', '--', 'sh', '-c', 'exit 3']);

    expect(run.status, run.stderr).toBe(0);
    const [line, content, mode, path] = run.stdout.trimEnd().split('\n');
    expect(line).toBe('eu-west-1 [secret]');
    expect(content).toBe('key-eu-west-1');
    expect(mode).toBe('600');
    expect(existsSync(path!)).toBe(false);
    expect(run.stdout).not.toContain(SECRET);
    expect(interactive.stdout).toBe(`${SECRET}\n`);
    expect(interpolated.stdout).toBe('eu-west-1-3\n');
    expect(noEnv.stderr).toContain('no environment specified');
    expect(failing.status).toBe(3);
  });

  it('sets and removes values with ESC\'s checks, keeping the definition\'s other secrets sealed', async () => {
    const plain = await cli(['env', 'set', 'app/dev', 'tier', 'gold']);
    const strong = await cli(['env', 'set', 'app/dev', 'apiToken', 'Xk9#mP2$vL7qR4wZ']);
    const secret = await cli(['env', 'set', 'app/dev', 'apiToken', 'Xk9#mP2$vL7qR4wZ', '--secret']);
    const allowed = await cli(['env', 'set', 'app/dev', 'oldPassword', 'Xk9#mP2$vL7qR4wZ', '--plaintext']);
    const fromStdin = await cli(['env', 'set', '--env', 'app/dev', 'motd', '-f', '-', '--string'], 'line one\nline two\n');
    const asString = await cli(['env', 'set', 'app/dev', 'literal', '[not, a, list]', '--string']);
    const list = await cli(['env', 'set', 'app/dev', 'zones', '[a, b]']);
    const removed = await cli(['env', 'rm', '--env', 'app/dev', 'tier']);
    const versioned = await cli(['env', 'set', 'app/dev@2', 'x', '1']);
    const opened = JSON.parse(await ok('env', 'open', 'app/dev'));
    const definition = await ok('env', 'get', 'app/dev', '--definition');

    expect(plain.status, plain.stderr).toBe(0);
    expect(strong.status).toBe(1);
    expect(strong.stderr).toContain('value looks like a secret; rerun with --secret to mark it as such, or --plaintext if you meant to leave it as plaintext');
    expect(secret.status, secret.stderr).toBe(0);
    expect(list.status, list.stderr).toBe(0);
    expect(allowed.status, allowed.stderr).toBe(0);
    expect(fromStdin.status, fromStdin.stderr).toBe(0);
    expect(asString.status, asString.stderr).toBe(0);
    expect(removed.status, removed.stderr).toBe(0);
    expect(versioned.stderr).toContain('the set command does not accept versions');
    expect(opened).toMatchObject({
      apiToken: 'Xk9#mP2$vL7qR4wZ',
      oldPassword: 'Xk9#mP2$vL7qR4wZ',
      password: SECRET,
      zones: ['a', 'b'],
      motd: 'line one\nline two\n',
      literal: '[not, a, list]',
    });
    expect(opened.tier).toBeUndefined();
    expect(definition).toContain('  apiToken:\n    fn::secret:\n      ciphertext: ');
    expect(definition).not.toContain(SECRET);
    expect(definition).toContain('  zones: [a, b]\n');
  });

  it('edits through $EDITOR: saves, refuses a broken definition with every diagnostic, and refuses a save another one beat', async () => {
    const editor = join(sandbox.root, `editor-${backend.name}.sh`);
    const write = (script: string) => {
      writeFileSync(editor, `#!/bin/sh\n${script}\n`);
      chmodSync(editor, 0o755);
    };
    await ok('env', 'init', '--env', 'app/edited');
    write('printf "values:\\n  greeting: hello\\n" > "$1"');
    const saved = await cli(['env', 'edit', 'app/edited', '--editor', editor]);
    write("cat > \"$1\" <<'EOF'\nvalues:\n  a: ${nowhere}\n  b: ${missing.x}\nEOF");
    const broken = await cli(['env', 'edit', 'app/edited'], '', { EDITOR: editor });
    const stack = `STACKYARD_HOME=${sandbox.home} HOME=${sandbox.home} node ${join(process.cwd(), 'dist/cli/stackyard.mjs')}`;
    write(`${stack} env set app/edited greeting other >/dev/null 2>&1\nprintf "values:\\n  greeting: mine\\n" > "$1"`);
    const raced = await cli(['env', 'edit', 'app/edited'], '', { EDITOR: editor });
    const after = await ok('env', 'open', 'app/edited', 'greeting', '-f', 'string');
    const fromFile = await cli(['env', 'edit', '--env', 'app/edited', '-f', '-'], 'values:\n  greeting: from-file\n');
    const brokenFile = await cli(['env', 'edit', 'app/edited', '-f', '-'], 'values:\n  x: ${y}\n');
    const final = await ok('env', 'open', 'app/edited', 'greeting', '-f', 'string');

    expect(saved.status, saved.stderr).toBe(0);
    expect(saved.stdout).toBe('Environment updated.\n');
    expect(broken.status).toBe(1);
    expect(broken.stderr).toContain('Error: unknown property "nowhere"\n\n  on app/edited line 2:\n   2:   a: ${nowhere}\n');
    expect(broken.stderr).toContain('Error: unknown property "missing"\n\n  on app/edited line 3:\n   3:   b: ${missing.x}\n');
    expect(broken.stderr).toContain('Press ENTER to continue editing or ^D to exit\nAborting edit.\n');
    expect(raced.status).toBe(1);
    expect(raced.stderr).toMatch(/\[409\] Environment '.*app\/edited' was changed since you read it/);
    expect(after).toBe('other\n');
    expect(fromFile.stdout).toBe('Environment updated.\n');
    expect(brokenFile.status).toBe(1);
    expect(brokenFile.stderr).toContain('Error: unknown property "y"\n\n  on app/edited line 2:\n   2:   x: ${y}\n\nerror: updating environment definition: too many errors\n');
    expect(final).toBe('from-file\n');
  });

  it('keeps versions: history, tags, describing a version, diff and rollback', async () => {
    await ok('env', 'version', 'tag', '--env', 'app/dev@stable', '@2');
    const tags = JSON.parse(await ok('env', 'version', 'tag', 'ls', 'app/dev', '--output', 'json', '--utc'));
    const described = await ok('env', 'version', '--env', 'app/dev@stable', '--utc');
    const history = JSON.parse(await ok('env', 'version', 'history', 'app/dev', '--output', 'json', '--utc'));
    const historyText = await ok('env', 'version', 'history', '--env', 'app/dev@1', '--utc');
    const fromTwo = JSON.parse(await ok('env', 'version', 'history', 'app/dev@2', '--output', 'json'));
    const diff = await ok('env', 'diff', 'app/dev@2', '@3');
    const same = await ok('env', 'diff', 'app/dev@latest');
    const onePath = await ok('env', 'diff', '--env', 'app/dev@2', '@3', '--path', 'password', '--show-secrets', '-f', 'string');
    const rollback = await ok('env', 'version', 'rollback', '--env', 'app/dev@2');
    const rolled = JSON.parse(await ok('env', 'open', 'app/dev'));
    await ok('env', 'version', 'tag', 'rm', '--env', 'app/dev@stable');
    const untagged = JSON.parse(await ok('env', 'version', 'tag', 'ls', '--env', 'app/dev', '--output', 'json'));

    expect(tags.tags.map((t: { name: string; revision: number }) => [t.name, t.revision])).toEqual([
      ['latest', 9],
      ['stable', 2],
    ]);
    expect(described).toMatch(/^stable\nRevision 2\nLast updated at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \+0000 UTC by \S+ <\S+>\n$/);
    expect(history.revisions.map((r: { number: number }) => r.number)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(history.revisions[0].tags).toEqual(['latest']);
    expect(fromTwo.revisions.map((r: { number: number }) => r.number)).toEqual([2, 1]);
    expect(diff).toContain(`# Value\n\`\`\`diff\n--- ${org}/app/dev@2\n+++ ${org}/app/dev@3\n@@ `);
    expect(diff).toContain('+  "tier": "gold"\n');
    expect(diff).toContain('# Definition\n```diff\n');
    expect(same).toBe('');
    expect(historyText).toMatch(/^revision 1\nAuthor: \S+ <\S+>\nDate:   \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \+0000 UTC\n\n$/);
    expect(onePath).toBe('');
    expect(rollback).toBe('Environment updated.\n');
    expect(rolled.tier).toBeUndefined();
    expect(rolled.apiToken).toBeUndefined();
    expect(untagged.tags.map((t: { name: string }) => t.name)).toEqual(['latest']);
  });

  it('lists, clones and removes environments', async () => {
    const cloned = await cli(['env', 'clone', '--env', `${org}/app/dev`, 'copy/dev2', '--preserve-history', '--preserve-access', '--preserve-rev-tags']);
    const listed = JSON.parse(await ok('env', 'ls', '--output', 'json'));
    const filtered = await ok('env', 'ls', '-p', 'copy', '-o', org);
    const copyHistory = JSON.parse(await ok('env', 'version', 'history', 'copy/dev2', '--output', 'json'));
    const copy = JSON.parse(await ok('env', 'open', 'copy/dev2'));
    const unconfirmed = await cli(['env', 'rm', 'copy/dev2']);
    const removed = await cli(['env', 'rm', '--env', 'copy/dev2', '--yes']);
    const gone = await cli(['env', 'get', 'copy/dev2']);

    expect(cloned.status, cloned.stderr).toBe(0);
    expect(cloned.stdout).toBe(`Environment ${org}/app/dev cloned into ${org}/copy/dev2.\n`);
    expect(listed.environments).toEqual([`${org}/app/dev`, `${org}/app/edited`, `${org}/copy/dev2`]);
    expect(filtered).toBe(`${org}/copy/dev2\n`);
    expect(copy.password).toBe(SECRET);
    expect(copyHistory.revisions).toHaveLength(10);
    expect(unconfirmed.status).toBe(1);
    expect(unconfirmed.stderr).toContain('--yes must be passed in to proceed');
    expect(removed.stdout).toBe(`Environment "${org}/copy/dev2" has been removed!\n`);
    expect(gone.status).toBe(1);
    expect(gone.stderr).toContain('[404]');
  });
});
