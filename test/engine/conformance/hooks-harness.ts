/**
 * Helpers of the hook scenarios: the hooks program (test/fixtures/programs/hooks) driven by a JSON description, and
 * the hook calls it records beside the test provider's calls.
 */
import { join } from 'node:path';
import type { StackConfig } from '../../../cli/engine/config/program-config.js';
import { FIXTURES, type RunRecord } from '../engine-harness.js';
import { ConformanceStack } from './conformance-harness.js';

/** A hook the program registers. */
export interface HookSpec {
  name: string;
  kind?: 'resource' | 'error';
  onDryRun?: boolean;
  ignoreErrors?: boolean;
  /** The hook throws this message. */
  fail?: string;
  /** An error hook asks for a retry this many times, then not. */
  retries?: number;
}

/** Hook names by the SDK's binding keys. */
export type HookBindingSpec = Partial<Record<'beforeCreate' | 'afterCreate' | 'beforeUpdate' | 'afterUpdate' | 'beforeDelete' | 'afterDelete' | 'onError', string[]>>;

/** A resource of the hooks program. */
export interface HookedResourceSpec {
  name: string;
  kind?: 'thing' | 'component';
  props?: Record<string, unknown>;
  protect?: boolean;
  /** Names of resources declared earlier. */
  dependsOn?: string[];
  hooks?: HookBindingSpec;
  /** The binding set by a resource transform instead of the option. */
  transformHooks?: HookBindingSpec;
}

/** A hooks program. */
export interface HooksProgram {
  hooks?: HookSpec[];
  resources?: HookedResourceSpec[];
  invokeTransforms?: { set: Record<string, unknown> }[];
  invokes?: { output: string; token: string; args?: Record<string, unknown> }[];
}

/** One recorded call: a provider operation, or a hook (`op` `hook` or `error-hook`). */
export interface RecordedCall {
  op: string;
  urn: string;
  hook?: string;
  id?: string;
  name?: string;
  type?: string;
  newInputs?: Record<string, unknown>;
  oldInputs?: Record<string, unknown>;
  newOutputs?: Record<string, unknown>;
  oldOutputs?: Record<string, unknown>;
  failedOperation?: string;
  errors?: string[];
  dryRun?: boolean;
}

/** A stack running the hooks program. */
export class HooksStack extends ConformanceStack {
  constructor() {
    super(join(FIXTURES, 'programs/hooks'), 'hooks');
  }

  /** Runs `kind` with the hooks program `spec`. */
  deployHooks(kind: Parameters<ConformanceStack['run']>[0], spec: HooksProgram, extra: Parameters<ConformanceStack['run']>[2] = {}): Promise<RunRecord> {
    const config: StackConfig = { 'hooks:program': { value: JSON.stringify(spec), secret: false } };
    return this.run(kind, config, extra);
  }

  /** Provider calls and hook calls since the last call of this method, in order. */
  recorded(): RecordedCall[] {
    return this.calls() as RecordedCall[];
  }
}

/** `op hook-or-resource` lines of recorded calls, for order assertions. */
export function callLines(calls: RecordedCall[]): string[] {
  return calls.map((c) => (c.op === 'hook' || c.op === 'error-hook' ? `${c.op} ${c.hook} ${c.name}` : `${c.op} ${c.urn.slice(c.urn.lastIndexOf('::') + 2)}`));
}
