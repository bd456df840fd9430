import { CommanderError, type Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../output/errors.js';
import { createProgram } from '../program.js';
import { declareTree } from './lazy-tree.js';

function find(program: Command, path: string): Command {
  let command = program;
  for (const name of path.split(' ')) command = command.commands.find((c) => c.name() === name)!;
  return command;
}

const longFlags = (command: Command) => command.options.map((o) => o.long);

/** What commander prints and throws for `argv`, on a tree declared as a run declares it or declared whole first. */
async function outcome(argv: string[], whole: boolean): Promise<{ out: string; err: string; thrown: string }> {
  const program = createProgram('1.2.3');
  if (whole) declareTree(program);
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((text) => ((out += String(text)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((text) => ((err += String(text)), true));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return { out, err, thrown: 'nothing' };
  } catch (error) {
    if (error instanceof CommanderError) return { out, err, thrown: `${error.code} exit ${error.exitCode}: ${error.message}` };
    throw error;
  } finally {
    vi.restoreAllMocks();
  }
}

describe('the lazily declared command tree', () => {
  afterEach(() => vi.restoreAllMocks());

  it('declares only the commands on the path a run parses', async () => {
    // Arrange
    const program = createProgram('1.2.3');

    // Act: a refused flag stops the run after parsing, before the command body
    const run = program.parseAsync(['stack', 'ls', '--emoji'], { from: 'user' });

    // Assert
    await expect(run).rejects.toThrow(UsageError);
    expect(longFlags(find(program, 'stack ls'))).toEqual(expect.arrayContaining(['--json', '--all', '--emoji', '--cwd', '--tracing']));
    expect(longFlags(find(program, 'stack'))).toEqual(expect.arrayContaining(['--show-ids', '--emoji']));
    expect(find(program, 'stack init').options).toEqual([]);
    expect(find(program, 'up').options).toEqual([]);
    expect(find(program, 'config').commands).toEqual([]);
  });

  it.each([
    [['--help']],
    [['help']],
    [['help', 'stack']],
    [['stack', '--help']],
    [['stack', 'ls', '-h']],
    [['org', 'member']],
    [['org', 'help', 'member']],
    [['stak', 'ls']],
    [['stack', 'lss']],
    [['stack', 'ls', '--jsn']],
    [['stack', 'ls', 'extra']],
    [['stack', 'tag', 'get']],
    [['up', '--refresh=maybe']],
    [['state', 'mv', '--bogus']],
    [['plugin', 'remove', '--al']],
    [['--stak', 'x', 'stack']],
  ])('prints and fails for %j exactly as the whole tree does', async (argv) => {
    expect(await outcome(argv, false)).toEqual(await outcome(argv, true));
  });

  it('gives a command parsed again the defaults of the flags declared for its first parse', async () => {
    // Arrange: `--no-select` defaults `select` to true; --secrets-provider is refused, so `stack init` never runs
    const program = createProgram('1.2.3');
    const init = () => find(program, 'stack init');

    // Act
    await expect(program.parseAsync(['stack', 'init', '--secrets-provider', 'passphrase'], { from: 'user' })).rejects.toThrow(UsageError);
    const first = init().opts().select;
    await expect(program.parseAsync(['stack', 'init', '--secrets-provider', 'passphrase'], { from: 'user' })).rejects.toThrow(UsageError);

    // Assert
    expect(first).toBe(true);
    expect(init().opts().select).toBe(true);
  });
});
