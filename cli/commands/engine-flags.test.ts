import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addEngineFlags, toConfigFlags, toOperationFlags } from './engine-flags.js';
import { assertNoRefusedFlags } from './pulumi-flags.js';

function parsed(command: 'preview' | 'up' | 'destroy' | 'refresh', argv: string[]) {
  const cmd = addEngineFlags(new Command(command).exitOverride(), command);
  cmd.parse(argv, { from: 'user' });
  return cmd;
}

function parse(command: 'preview' | 'up' | 'destroy' | 'refresh', argv: string[], env: NodeJS.ProcessEnv = {}) {
  return toOperationFlags(parsed(command, argv).opts(), env);
}

describe('engine command flags', () => {
  it('maps the flags the engine implements', () => {
    const { flags } = parse('up', ['--yes', '--skip-preview', '-t', 'urn:a', '--target', 'urn:b', '-p', '4', '--diff', '--refresh']);
    expect(flags).toMatchObject({ yes: true, skipPreview: true, target: ['urn:a', 'urn:b'], parallel: 4, diff: true, refresh: true });
  });

  it('refuses pulumi flags it does not implement, naming the reason', () => {
    // Prepare
    const cmd = parsed('up', ['--yes', '--ignore-protect']);

    // Act / Assess
    expect(() => assertNoRefusedFlags(cmd, true)).toThrow(/--ignore-protect is not supported by stackyard: unprotect them first/);
  });

  it('reads --strict, refusing it with --skip-preview as pulumi does', () => {
    expect(parse('up', ['--yes', '--strict']).flags.strict).toBe(true);
    expect(() => parse('up', ['--strict', '--skip-preview'])).toThrow('--strict cannot be used with --skip-preview; strict requires a preview');
  });

  it('reads --wait-for-approval (an hour by default, or a Go duration) and refuses it without --plan', () => {
    const byDefault = parse('up', ['--plan', 'p1', '--wait-for-approval']).flags.waitForApproval;
    const given = parse('up', ['--plan', 'p1', '--wait-for-approval=30m']).flags.waitForApproval;

    expect(byDefault).toEqual({ timeoutMs: 3_600_000 });
    expect(given).toEqual({ timeoutMs: 1_800_000 });
    expect(() => parse('up', ['--wait-for-approval'])).toThrow('--wait-for-approval waits for the approval of a plan: pass --plan <id|file> too');
  });

  it('rejects flags pulumi does not have for the command', () => {
    expect(() => parse('preview', ['--yes'])).toThrow();
    expect(() => parse('refresh', ['--parallel', 'many'])).toThrow();
  });

  it('reads the display flags, --event-log and --skip-plugin-pre-install', () => {
    const { flags } = parse('up', ['--show-sames', '--suppress-outputs', '--event-log', 'e.jsonl', '--skip-plugin-pre-install']);
    expect(flags.display).toMatchObject({ showSames: true, suppressOutputs: true, showReads: false });
    expect(flags).toMatchObject({ eventLog: 'e.jsonl', skipPluginPreInstall: true });
  });

  it('reads --preview-only for destroy and refresh', () => {
    expect(parse('refresh', ['--preview-only']).previewOnly).toBe(true);
  });

  it('treats --skip-preview and PULUMI_SKIP_CONFIRMATIONS as --yes, as pulumi does', () => {
    expect(parse('up', ['--skip-preview']).flags.yes).toBe(true);
    expect(parse('destroy', [], { PULUMI_SKIP_CONFIRMATIONS: 'true' }).flags.yes).toBe(true);
    expect(parse('refresh', [], { PULUMI_SKIP_CONFIRMATIONS: '1' }).flags.yes).toBe(true);
    expect(parse('up', [], { PULUMI_SKIP_CONFIRMATIONS: 'false' }).flags.yes).toBe(false);
  });

  it('reads --refresh, --refresh=true and --refresh=false', () => {
    expect(parse('destroy', ['--refresh']).flags.refresh).toBe(true);
    expect(parse('destroy', ['--refresh=true']).flags.refresh).toBe(true);
    expect(parse('up', ['--refresh=false']).flags.refresh).toBe(false);
    expect(parse('up', []).flags.refresh).toBeUndefined();
    expect(() => parse('up', ['--refresh=maybe'])).toThrow(/expected true or false/);
  });

  it('reads -c key=value (value may hold = or be empty), --config-path and --config-file', () => {
    const flags = toConfigFlags(parsed('up', ['-c', 'a=1', '--config', 'ns:b=x=y', '-c', 'empty', '--config-path', '--config-file', 'f.yaml']).opts());
    expect(flags).toEqual({
      overrides: [
        { key: 'a', value: '1' },
        { key: 'ns:b', value: 'x=y' },
        { key: 'empty', value: '' },
      ],
      path: true,
      file: 'f.yaml',
    });
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

  it('reads -v as a level (also cobra\'s -v=3), with --logtostderr and --logflow', () => {
    expect(toOperationFlags({ verbose: '3', logtostderr: true, logflow: true }, {}).flags.logging).toEqual({ verbosity: 3, toStderr: true, flow: true });
    expect(parse('up', ['-v=9']).flags.logging).toEqual({ verbosity: 9, toStderr: false, flow: false });
    expect(parse('up', ['-v', 'lots']).flags).toMatchObject({ verbose: true, logging: { verbosity: 1 } });
    expect(parse('up', []).flags).toMatchObject({ verbose: false, logging: { verbosity: 0 } });
  });

  it('reads --run-program[=bool], defaulting to PULUMI_RUN_PROGRAM, on all four commands', () => {
    expect(parse('refresh', ['--run-program']).flags.runProgram).toBe(true);
    expect(parse('destroy', ['--run-program=false'], { PULUMI_RUN_PROGRAM: 'true' }).flags.runProgram).toBe(false);
    expect(parse('refresh', [], { PULUMI_RUN_PROGRAM: '1' }).flags.runProgram).toBe(true);
    expect(parse('destroy', []).flags.runProgram).toBe(false);
    expect(parse('up', ['--refresh', '--run-program']).flags).toMatchObject({ refresh: true, runProgram: true });
    expect(() => assertNoRefusedFlags(parsed('preview', ['--run-program']), true)).not.toThrow();
  });
});
