/**
 * Maps the flags that narrow or force an engine operation (`--target`, `--target-dependents`, `--exclude`,
 * `--exclude-dependents`, `--replace`, `--target-replace`, `--continue-on-error`, `destroy --exclude-protected`;
 * declared in engine-flags.ts) to the engine's `OperationFlags`, refusing the combinations `pulumi` refuses.
 */
import type { OperationFlags } from '../engine/operation-types.js';
import { UsageError } from '../output/errors.js';

/** The constraint flags of parsed options. */
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
    throw new UsageError('if any flags in the group [target exclude] are set none of the others can be: --target and --exclude cannot be combined');
  }
  if (flags.target?.length && flags.excludeProtected) throw new UsageError('you cannot specify --target and --exclude-protected');
  return flags;
}
