/**
 * The flags of `pulumi preview|up|destroy|refresh`, declared on our commands so scripts written for `pulumi` keep
 * working: the ones the engine implements are mapped to `OperationFlags`; the rest are accepted and warned about.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { ColorMode } from '../engine/display.js';
import { parseDurationSeconds } from '../engine/durations.js';
import type { OperationCommand, OperationFlags } from '../engine/operation.js';
import { addTargetFlags, toTargetFlags } from './target-flags.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return n;
}

const COLOR_MODES: readonly ColorMode[] = ['always', 'never', 'auto', 'raw'];

function colorMode(value: string): ColorMode {
  if (!(COLOR_MODES as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${COLOR_MODES.join(', ')}, got "${value}"`);
  return value as ColorMode;
}

/** `--wait` alone waits as long as it takes; `--wait=DURATION` (Go syntax: `90s`, `5m`, `1h30m`) at most that long. */
function waitDuration(value: string): number {
  const seconds = parseDurationSeconds(value);
  if (seconds === undefined) throw new InvalidArgumentError(`expected a duration such as 30s, 5m or 1h30m, got "${value}"`);
  return seconds * 1000;
}

/** Flags `pulumi` accepts that we take but do not act on, per command. */
const IGNORED: Record<string, { flags: string; description: string; commands: OperationCommand[]; repeatable?: boolean }> = {
  configFile: { flags: '--config-file <file>', description: 'use this config file instead of Pulumi.<stack>.yaml', commands: ['preview', 'up', 'destroy', 'refresh'] },
  config: { flags: '-c, --config <key=value>', description: 'config to use for this run', commands: ['preview', 'up'], repeatable: true },
  configPath: { flags: '--config-path', description: 'config keys contain a path', commands: ['preview', 'up'] },
  policyPack: { flags: '--policy-pack <path>', description: 'policy packs to run', commands: ['preview', 'up'], repeatable: true },
  policyPackConfig: { flags: '--policy-pack-config <path>', description: 'policy pack config', commands: ['preview', 'up'], repeatable: true },
  showConfig: { flags: '--show-config', description: 'show configuration keys and values', commands: ['preview', 'up'] },
  showReplacementSteps: { flags: '--show-replacement-steps', description: 'show detailed replacement steps', commands: ['preview', 'up', 'destroy', 'refresh'] },
  showSames: { flags: '--show-sames', description: 'show unchanged resources', commands: ['preview', 'up', 'destroy', 'refresh'] },
  showReads: { flags: '--show-reads', description: 'show resources that are read', commands: ['preview', 'up'] },
  suppressOutputs: { flags: '--suppress-outputs', description: 'do not print stack outputs', commands: ['preview', 'up', 'destroy', 'refresh'] },
  suppressProgress: { flags: '--suppress-progress', description: 'do not print progress', commands: ['preview', 'up', 'destroy', 'refresh'] },
  suppressPermalink: { flags: '--suppress-permalink [value]', description: 'do not print the update permalink', commands: ['preview', 'up', 'destroy', 'refresh'] },
  debug: { flags: '-d, --debug', description: 'print debug information', commands: ['preview', 'up', 'destroy', 'refresh'] },
  tracing: { flags: '--tracing <url>', description: 'emit tracing', commands: ['preview', 'up', 'destroy', 'refresh'] },
  plan: { flags: '--plan <file>', description: 'constrain the update to a saved plan', commands: ['up'] },
  savePlan: { flags: '--save-plan <file>', description: 'save the update plan', commands: ['preview'] },
  importFile: { flags: '--import-file <file>', description: 'write an import file', commands: ['preview'] },
  attachDebugger: { flags: '--attach-debugger [what]', description: 'wait for a debugger', commands: ['preview', 'up', 'destroy', 'refresh'] },
  runProgram: { flags: '--run-program', description: 'run the program first', commands: ['destroy', 'refresh'] },
  remove: { flags: '--remove', description: 'remove the stack afterwards', commands: ['destroy'] },
  clearPendingCreates: { flags: '--clear-pending-creates', description: 'clear pending creates', commands: ['refresh'] },
  skipPendingCreates: { flags: '--skip-pending-creates', description: 'skip pending creates', commands: ['refresh'] },
  importPendingCreates: { flags: '--import-pending-creates <pairs>', description: 'import pending creates', commands: ['refresh'], repeatable: true },
  execKind: { flags: '--exec-kind <kind>', description: 'execution kind (internal)', commands: ['preview', 'up', 'destroy', 'refresh'] },
  execAgent: { flags: '--exec-agent <agent>', description: 'execution agent (internal)', commands: ['preview', 'up', 'destroy', 'refresh'] },
  secretsProvider: { flags: '--secrets-provider <provider>', description: 'secrets provider for a new stack', commands: ['preview', 'up'] },
};

/** Declares every `pulumi` flag of `command` on `cmd`. */
export function addEngineFlags(cmd: Command, command: OperationCommand): Command {
  cmd.option('-s, --stack <name>', 'the stack to operate on (default: the selected stack)');
  cmd.option('--diff', 'show changed properties of updates and replacements');
  cmd.option('-j, --json', 'print one JSON document instead of progress lines');
  cmd.option('-p, --parallel <n>', 'run at most this many resource operations at once', positiveInt);
  cmd.option('-m, --message <text>', 'message recorded with the update');
  cmd.option('-v, --verbose <level>', 'print engine debug diagnostics');
  cmd.option('--color <mode>', 'colorize output: always, never, raw or auto (auto: on a terminal unless NO_COLOR is set)', colorMode);
  if (command !== 'preview') {
    cmd.option('--wait [duration]', "if another update holds the stack, wait for it to finish (at most DURATION, e.g. 10m) instead of failing", waitDuration);
  }
  if (command !== 'preview') {
    cmd.option('-y, --yes', 'proceed without asking for confirmation');
    cmd.option('-f, --skip-preview', 'do not preview before proceeding');
  }
  if (command === 'preview' || command === 'up') cmd.option('-r, --refresh', 'refresh the state before the update');
  if (command !== 'destroy') cmd.option('--expect-no-changes', 'fail if any change is proposed or made');
  if (command === 'destroy' || command === 'refresh') cmd.option('--preview-only', 'only preview, change nothing');
  addTargetFlags(cmd, command);
  for (const spec of Object.values(IGNORED)) {
    if (!spec.commands.includes(command)) continue;
    if (spec.repeatable) cmd.option(spec.flags, `${spec.description} (not supported yet)`, collect);
    else cmd.option(spec.flags, `${spec.description} (not supported yet)`);
  }
  return cmd;
}

/** Maps parsed options to engine flags; every unsupported flag that was given yields a warning. */
export function toOperationFlags(opts: Record<string, unknown>): { flags: OperationFlags; warnings: string[]; previewOnly: boolean } {
  const warnings: string[] = [];
  for (const [key, spec] of Object.entries(IGNORED)) {
    if (opts[key] !== undefined && opts[key] !== false) {
      warnings.push(`warning: ${spec.flags.split(' ').filter((p) => p.startsWith('--'))[0]} is not supported by stackyard yet and was ignored`);
    }
  }
  const flags: OperationFlags = {
    yes: opts.yes === true,
    skipPreview: opts.skipPreview === true,
    diff: opts.diff === true,
    json: opts.json === true,
    ...toTargetFlags(opts),
    refresh: opts.refresh === true,
    expectNoChanges: opts.expectNoChanges === true,
    parallel: typeof opts.parallel === 'number' ? opts.parallel : undefined,
    verbose: opts.verbose !== undefined,
    color: typeof opts.color === 'string' ? (opts.color as ColorMode) : undefined,
    wait: opts.wait === true ? { timeoutMs: Number.POSITIVE_INFINITY } : typeof opts.wait === 'number' ? { timeoutMs: opts.wait } : undefined,
  };
  return { flags, warnings, previewOnly: opts.previewOnly === true };
}
