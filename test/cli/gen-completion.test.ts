/**
 * `gen-completion bash|zsh|fish` through the bundled CLI: scripts generated from the command tree; the bash one is
 * sourced in a real bash and asked for completions (needs `npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

describe('gen-completion', () => {
  const sandbox = new CliSandbox();
  const cli = (...args: string[]) => sandbox.run(sandbox.root, args);
  afterAll(removeSandboxes);

  it('completes subcommands and flags at each command path in bash, including the new commands', async () => {
    // Arrange
    const script = join(sandbox.root, 'stackyard.bash');
    writeFileSync(script, (await cli('gen-completion', 'bash')).stdout);
    const complete = (...line: string[]) =>
      spawnSync('bash', ['-c', `source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _stackyard; echo "\${COMPREPLY[*]}"`, script, 'stackyard', ...line], { encoding: 'utf8' }).stdout.trim();

    // Act / Assert: a flag's value (`-C x`) is not taken for a command
    expect(complete('st')).toBe('stack state');
    expect(complete('stack', 'gr')).toBe('graph');
    expect(complete('config', 'set-all', '--pl')).toBe('--plaintext');
    expect(complete('-C', 'x', 'stack', 'tag', '')).toBe('get ls rm set --help -h');
    expect(complete('org', 'get')).toBe('get-default');
    expect(complete('wa')).toBe('watch');
  });

  it('writes zsh (through bashcompinit) and fish scripts of the same tree, under the alias `completion` too', async () => {
    const zsh = await cli('completion', 'zsh');
    const fish = await cli('gen-completion', 'fish');

    expect(zsh.stdout).toMatch(/^#compdef stackyard\nautoload -U \+X bashcompinit && bashcompinit\n# bash completion for stackyard/);
    expect(zsh.stdout).toContain('complete -o default -F _stackyard stackyard');
    expect(fish.stdout).toContain("complete -c stackyard -n '__stackyard_is \\'stackyard stack\\'' -a 'graph' -d 'Export a stack\\'s dependency graph to a file (DOT)'");
    expect(fish.stdout).toContain("complete -c stackyard -n '__stackyard_is \\'stackyard new\\'' -l yes -s y -d 'skip prompts and take every default'");
  });

  it('refuses a shell it has no script for', async () => {
    const result = await cli('gen-completion', 'powershell');

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('error: "powershell" is not a supported shell');
  });
});
