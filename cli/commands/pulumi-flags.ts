/**
 * Declares a `pulumi` command's flags on ours, so scripts written for `pulumi` keep parsing. A flag stackyard does
 * not implement is declared with the reason it is refused: using it fails the command before anything runs (exit 2),
 * because a flag accepted and ignored would silently change what the user asked for.
 */
import { parseDurationSeconds } from '../engine/go-formats/durations.js';
import { Command, InvalidArgumentError, Option } from 'commander';
import { UsageError } from '../output/errors.js';

export interface FlagSpec {
  /** Commander syntax, e.g. `-j, --json` or `--file <path>`. */
  flags: string;
  description: string;
  /** Not implemented: using the flag fails the command with this reason (a sentence that says why, and what to do). */
  refused?: string;
  /** May be given several times (values collected in a list). */
  repeatable?: boolean;
  /** Parses the value (commander's argParser). */
  parse?: (value: string) => unknown;
  /** Left out of `--help` (the global flags, listed once by the program's help). */
  hidden?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * Pulumi's logging flags, accepted by every command (with `-v`, they matter where the engine runs: docs/cli.md):
 * `--logtostderr` writes the debug log to stderr, `--logflow` hands `-v=<level>` and `--logtostderr` on to plugins.
 */
export const LOGGING_FLAGS: FlagSpec[] = [
  { flags: '--logflow', description: 'flow log settings to child processes (like plugins)' },
  { flags: '--logtostderr', description: 'log to stderr instead of to files' },
];

/** Flags every `pulumi` command inherits that stackyard does not act on; declared per command (see register.ts). */
export const INHERITED_REFUSED: FlagSpec[] = [
  { flags: '-v, --verbose <level>', description: 'enable verbose logging', refused: 'verbose logging applies to preview, up, destroy and refresh only' },
  { flags: '--tracing <url>', description: 'emit tracing', refused: 'stackyard does not emit OpenTracing spans' },
];

const refusedByCommand = new WeakMap<Command, { attribute: string; flag: string; reason: string }[]>();

/** Adds the flags to `cmd` and remembers which of them are refused. */
export function addFlags(cmd: Command, specs: FlagSpec[]): Command {
  const refused = refusedByCommand.get(cmd) ?? [];
  for (const spec of specs) {
    const option = new Option(spec.flags, spec.refused ? `${spec.description} (not supported by stackyard: ${spec.refused})` : spec.description);
    if (spec.repeatable) option.argParser(collect);
    else if (spec.parse) option.argParser(spec.parse);
    if (spec.hidden) option.hideHelp();
    cmd.addOption(option);
    if (spec.refused) refused.push({ attribute: option.attributeName(), flag: option.long ?? spec.flags, reason: spec.refused });
  }
  refusedByCommand.set(cmd, refused);
  return cmd;
}

/** The reason `flag` (its long name) is refused on `cmd`, if it is. */
export function refusalReason(cmd: Command, flag: string): string | undefined {
  return refusedByCommand.get(cmd)?.find((r) => r.flag === flag)?.reason;
}

/**
 * Fails with a `UsageError` when a refused flag was given to `cmd` or to one of its parents (the program too if
 * asked): called before a command runs, so nothing has happened yet.
 */
export function assertNoRefusedFlags(cmd: Command, includeProgram = false): void {
  for (let current: Command | null = cmd; current && (includeProgram || current.parent); current = current.parent) {
    const opts = current.opts();
    for (const { attribute, flag, reason } of refusedByCommand.get(current) ?? []) {
      if (opts[attribute] !== undefined && opts[attribute] !== false) {
        throw new UsageError(`${flag} is not supported by stackyard: ${reason}`, 'Run the command without it; docs/cli.md lists every flag and its status.');
      }
    }
  }
}

/** `--page 2`: a positive whole number. */
export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive whole number, got "${value}"`);
  return n;
}

/**
 * A token lifetime for `token create --expires-in`, in days (what the API takes): `30d`, or a Go duration (`15m`,
 * `12h`, `1h30m`), at least a second.
 */
export function tokenLifetimeDays(value: string): number {
  const days = /^(\d+(?:\.\d+)?)d$/.exec(value.trim());
  const seconds = days ? Number(days[1]) * 86_400 : parseDurationSeconds(value.trim());
  if (seconds === undefined || seconds < 1) {
    throw new InvalidArgumentError(`expected a duration such as 15m, 12h or 30d, got "${value}"`);
  }
  return seconds / 86_400;
}

