/**
 * The flags that narrow or force an engine operation, declared per command exactly as `pulumi` declares them
 * (`--target`, `--target-dependents`, `--exclude`, `--exclude-dependents`, `--replace`, `--target-replace`,
 * `--continue-on-error`, `destroy --exclude-protected`) and mapped to the engine's `OperationFlags`.
 */
import type { Command } from 'commander';
import { OperationUsageError, type OperationCommand, type OperationFlags } from '../engine/operation.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

interface FlagSpec {
  flags: string;
  description: string;
  commands: OperationCommand[];
  repeatable?: boolean;
}

const ALL: OperationCommand[] = ['preview', 'up', 'destroy', 'refresh'];

/** Keyed by commander's option name. */
const SPECS: Record<string, FlagSpec> = {
  target: { flags: '-t, --target <urn>', description: 'operate on this resource only; repeatable; wildcards (*, **) are supported', commands: ALL, repeatable: true },
  targetDependents: { flags: '--target-dependents', description: 'also operate on the resources that depend on a --target', commands: ALL },
  exclude: { flags: '-x, --exclude <urn>', description: 'leave this resource alone; repeatable; wildcards (*, **) are supported', commands: ALL, repeatable: true },
  excludeDependents: { flags: '--exclude-dependents', description: 'also leave alone the resources that depend on an --exclude', commands: ['preview', 'up', 'refresh'] },
  replace: { flags: '--replace <urn>', description: 'replace this resource even if it has no changes; repeatable', commands: ['preview', 'up'], repeatable: true },
  targetReplace: { flags: '--target-replace <urn>', description: 'replace this resource and operate on it only; repeatable', commands: ['preview', 'up'], repeatable: true },
  continueOnError: { flags: '--continue-on-error', description: 'keep going after a failed step, skipping only what depends on it (the run still fails)', commands: ['up', 'destroy'] },
  excludeProtected: { flags: '--exclude-protected', description: 'do not destroy protected resources (nor what they depend on); destroy all others', commands: ['destroy'] },
};

/** Declares the constraint flags `command` takes. */
export function addTargetFlags(cmd: Command, command: OperationCommand): Command {
  for (const spec of Object.values(SPECS)) {
    if (!spec.commands.includes(command)) continue;
    if (spec.repeatable) cmd.option(spec.flags, spec.description, collect);
    else cmd.option(spec.flags, spec.description);
  }
  return cmd;
}

/** Maps parsed options to engine flags; combinations `pulumi` refuses are refused the same way. */
export function toTargetFlags(opts: Record<string, unknown>): Partial<OperationFlags> {
  const list = (key: string) => (Array.isArray(opts[key]) ? (opts[key] as string[]) : undefined);
  const flags: Partial<OperationFlags> = {
    target: list('target'),
    targetDependents: opts.targetDependents === true || undefined,
    exclude: list('exclude'),
    excludeDependents: opts.excludeDependents === true || undefined,
    replace: list('replace'),
    targetReplace: list('targetReplace'),
    continueOnError: opts.continueOnError === true || undefined,
    excludeProtected: opts.excludeProtected === true || undefined,
  };
  if (flags.target?.length && flags.exclude?.length) {
    throw new OperationUsageError('if any flags in the group [target exclude] are set none of the others can be; --target and --exclude cannot be combined');
  }
  if (flags.target?.length && flags.excludeProtected) throw new OperationUsageError('you cannot specify --target and --exclude-protected');
  return flags;
}
