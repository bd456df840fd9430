/**
 * The bundled CLI's answers where Pulumi's grammar meets a command stackyard has only in name: `version`, `logs` and
 * `convert`, and unknown commands and subcommands, worded as Pulumi's (pkg/cmd/pulumi/rattler) with exit code 2.
 * Needs `npm run build`.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CliSandbox, REPO, removeSandboxes } from './cli-harness.js';

describe('stackyard command grammar', () => {
  const sandbox = new CliSandbox();
  const cli = (...args: string[]) => sandbox.run(sandbox.root, args);
  afterAll(removeSandboxes);

  it('prints the version alone for `version`, as for --version', async () => {
    // Arrange
    const { version } = JSON.parse(readFileSync(`${REPO}/package.json`, 'utf8')) as { version: string };

    // Act
    const result = await cli('version');

    // Assert
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  });

  it('answers `logs` (with Pulumi\'s flags) that there is no log provider, exit 1', async () => {
    const result = await cli('logs', '--follow', '--since', '5m', '--resource', 'bucket');

    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: stackyard has no log provider: it cannot collect the logs of a stack's resources\n {2}Read them/);
    expect(result.stderr).not.toContain('unknown command');
  });

  it('refuses `convert`, whatever its flags, with the reason and the way out', async () => {
    const result = await cli('convert', '--from', 'terraform', '--language', 'typescript', '--out', 'x');

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('error: stackyard does not convert programs: `convert` needs the converter plugins');
    expect(result.stderr).toContain('Run `pulumi convert`');
  });

  it.each([
    // a nested command, found from the root (Pulumi's own example)
    // `import` is a near miss of `export` too (two edits in six letters), as with Pulumi's own top-level `import`
    [['export'], 'error: unknown command "export" for "stackyard"\n\nDid you mean this?\n\tstackyard stack export\n\tstackyard import\n\nRun \'stackyard --help\' for usage.\n'],
    // a near miss under a group with no action of its own
    [['stack', 'tag', 'gt'], 'error: unknown command "gt" for "stackyard stack tag"\n\nDid you mean this?\n\tstackyard stack tag get\n\nRun \'stackyard stack tag --help\' for usage.\n'],
    // a word past the arguments of a command that runs on its own is an attempted subcommand
    [['config', 'gt'], 'error: unknown command "gt" for "stackyard config"\n\nDid you mean this?\n\tstackyard config get\n\nRun \'stackyard config --help\' for usage.\n'],
    // nothing close: no suggestion block
    [['zzzqqq'], 'error: unknown command "zzzqqq" for "stackyard"\nRun \'stackyard --help\' for usage.\n'],
  ])('fails %j with exit 2 and Pulumi\'s wording', async (argv, expected) => {
    const result = await cli(...argv);

    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(expected);
  });
});
