import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { OperationCommand } from '../engine/operation-types.js';
import { addEngineFlags, toOperationFlags } from './engine-flags.js';

function parse(command: OperationCommand, argv: string[]) {
  const cmd = addEngineFlags(new Command(command).exitOverride(), command);
  cmd.parse(argv, { from: 'user' });
  return toOperationFlags(cmd.opts(), {});
}

describe('target, exclude and replace flags', () => {
  it('maps every constraint flag of up to the engine', () => {
    const { flags } = parse('up', ['-t', 'urn:a', '--target-dependents', '--replace', 'urn:b', '--target-replace', 'urn:c', '--continue-on-error']);

    expect(flags).toMatchObject({ target: ['urn:a'], targetDependents: true, replace: ['urn:b'], targetReplace: ['urn:c'], continueOnError: true });
  });

  it('maps -x/--exclude and --exclude-dependents, and destroy --exclude-protected', () => {
    expect(parse('preview', ['-x', 'urn:a', '--exclude', 'urn:b', '--exclude-dependents']).flags).toMatchObject({ exclude: ['urn:a', 'urn:b'], excludeDependents: true });
    expect(parse('destroy', ['--exclude-protected']).flags.excludeProtected).toBe(true);
  });

  it('declares each flag only on the commands pulumi declares it on', () => {
    expect(() => parse('refresh', ['--replace', 'urn:a'])).toThrow();
    expect(() => parse('preview', ['--continue-on-error'])).toThrow();
    expect(() => parse('up', ['--exclude-protected'])).toThrow();
    expect(() => parse('destroy', ['--exclude-dependents'])).toThrow();
    expect(() => parse('up', ['-x', 'urn:a'])).toThrow();
  });

  it('refuses --target with --exclude, and --target with --exclude-protected, as pulumi does', () => {
    expect(() => parse('up', ['-t', 'urn:a', '--exclude', 'urn:b'])).toThrow(/--target and --exclude cannot be combined/);
    expect(() => parse('destroy', ['-t', 'urn:a', '--exclude-protected'])).toThrow(/you cannot specify --target and --exclude-protected/);
  });
});
