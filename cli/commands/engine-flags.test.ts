import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addEngineFlags, toOperationFlags } from './engine-flags.js';

function parse(command: 'preview' | 'up' | 'destroy' | 'refresh', argv: string[]) {
  const cmd = addEngineFlags(new Command(command).exitOverride(), command);
  cmd.parse(argv, { from: 'user' });
  return toOperationFlags(cmd.opts());
}

describe('engine command flags', () => {
  it('maps the flags the engine implements', () => {
    const { flags, warnings } = parse('up', ['--yes', '--skip-preview', '-t', 'urn:a', '--target', 'urn:b', '-p', '4', '--diff', '--refresh']);
    expect(flags).toMatchObject({ yes: true, skipPreview: true, target: ['urn:a', 'urn:b'], parallel: 4, diff: true, refresh: true });
    expect(warnings).toEqual([]);
  });

  it('accepts pulumi flags it does not implement, with a warning each', () => {
    const { warnings } = parse('destroy', ['--yes', '--show-replacement-steps', '--remove']);
    expect(warnings).toEqual([
      'warning: --show-replacement-steps is not supported by stackyard yet and was ignored',
      'warning: --remove is not supported by stackyard yet and was ignored',
    ]);
  });

  it('rejects flags pulumi does not have for the command', () => {
    expect(() => parse('preview', ['--yes'])).toThrow();
    expect(() => parse('refresh', ['--parallel', 'many'])).toThrow();
  });

  it('reads --preview-only for destroy and refresh', () => {
    expect(parse('refresh', ['--preview-only']).previewOnly).toBe(true);
  });

  it('parses --wait with and without a duration, on the commands that take a lease', () => {
    expect(parse('up', ['--wait']).flags.wait).toEqual({ timeoutMs: Number.POSITIVE_INFINITY });
    expect(parse('destroy', ['--wait=1m30s']).flags.wait).toEqual({ timeoutMs: 90_000 });
    expect(parse('refresh', ['--wait', '250ms']).flags.wait).toEqual({ timeoutMs: 250 });
    expect(parse('up', []).flags.wait).toBeUndefined();
    expect(() => parse('up', ['--wait=soon'])).toThrow(/expected a duration such as 30s, 5m or 1h30m, got "soon"/);
    expect(() => parse('preview', ['--wait'])).toThrow();
  });

  it('parses --color and refuses unknown modes', () => {
    expect(parse('preview', ['--color', 'never']).flags.color).toBe('never');
    expect(parse('up', ['--color=always']).flags.color).toBe('always');
    expect(parse('up', []).flags.color).toBeUndefined();
    expect(() => parse('up', ['--color', 'rainbow'])).toThrow(/expected one of always, never, auto, raw/);
  });
});
