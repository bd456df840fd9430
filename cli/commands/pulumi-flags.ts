/**
 * Declares a `pulumi` command's flags on ours, so scripts written for `pulumi` keep parsing. Flags we do not act on
 * are accepted and named in a warning instead of failing as unknown options.
 */
import { Command, InvalidArgumentError, Option } from 'commander';

export interface FlagSpec {
  /** Commander syntax, e.g. `-j, --json` or `--file <path>`. */
  flags: string;
  description: string;
  /** Accepted but not acted on: using it prints a warning. */
  unsupported?: boolean;
  /** May be given several times (values collected in a list). */
  repeatable?: boolean;
  /** Parses the value (commander's argParser). */
  parse?: (value: string) => unknown;
  /** Left out of `--help` (the global flags, listed once by the program's help). */
  hidden?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Flags every `pulumi` command inherits that stackyard does not act on; declared per command (see register.ts). */
export const INHERITED_UNSUPPORTED: FlagSpec[] = [
  { flags: '-v, --verbose <level>', description: 'enable verbose logging', unsupported: true },
  { flags: '--tracing <url>', description: 'emit tracing', unsupported: true },
];

const unsupportedByCommand = new WeakMap<Command, { attribute: string; flag: string }[]>();

/** Adds the flags to `cmd` and remembers which of them are unsupported. */
export function addFlags(cmd: Command, specs: FlagSpec[]): Command {
  const unsupported = unsupportedByCommand.get(cmd) ?? [];
  for (const spec of specs) {
    const option = new Option(spec.flags, spec.unsupported ? `${spec.description} (not supported by stackyard; ignored)` : spec.description);
    if (spec.repeatable) option.argParser(collect);
    else if (spec.parse) option.argParser(spec.parse);
    if (spec.hidden) option.hideHelp();
    cmd.addOption(option);
    if (spec.unsupported) unsupported.push({ attribute: option.attributeName(), flag: option.long ?? spec.flags });
  }
  unsupportedByCommand.set(cmd, unsupported);
  return cmd;
}

/** One warning line per unsupported flag given to `cmd` or to one of its parents (the program too if asked). */
export function unsupportedFlagWarnings(cmd: Command, includeProgram = false): string[] {
  const warnings: string[] = [];
  for (let current: Command | null = cmd; current && (includeProgram || current.parent); current = current.parent) {
    const opts = current.opts();
    for (const { attribute, flag } of unsupportedByCommand.get(current) ?? []) {
      if (opts[attribute] !== undefined && opts[attribute] !== false) {
        warnings.push(`warning: ${flag} is not supported by stackyard yet and was ignored`);
      }
    }
  }
  return warnings;
}

/** `--page 2`: a positive whole number. */
export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive whole number, got "${value}"`);
  return n;
}
