/**
 * Helpers of the engine conformance suite: the conformance program (test/fixtures/programs/conformance) driven by a
 * JSON description, and readers for the steps, state and provider calls of a run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResourceState, UntypedDeployment } from '../../../cli/engine/state/deployment.js';
import type { StackConfig } from '../../../cli/engine/config/program-config.js';
import { UNKNOWN } from '../../../cli/engine/resource/properties.js';
import { FIXTURES, TestStack, type RunRecord } from '../engine-harness.js';

export const CONFORMANCE_PROGRAM = join(FIXTURES, 'programs/conformance');
export const THING = 'testprov:index:Thing';
export const COMPONENT = 'conformance:index:Component';

/** One resource of a conformance program (see the program's header comment). */
export interface ResourceSpec {
  name: string;
  kind?: 'thing' | 'component' | 'dynamic' | 'get' | 'get-dynamic' | 'provider';
  props?: Record<string, unknown>;
  refs?: Record<string, string>;
  dependsOn?: string[];
  parent?: string;
  protect?: boolean;
  deleteBeforeReplace?: boolean;
  retainOnDelete?: boolean;
  replaceOnChanges?: string[];
  ignoreChanges?: string[];
  /** The `deletedWith` resource option: the name of a resource declared earlier. */
  deletedWith?: string;
  aliases?: (string | { name?: string; type?: string; parent?: string | null })[];
  id?: string;
  /** The `provider` resource option: the name of a resource of kind `provider` declared earlier. */
  provider?: string;
  /** The `import` resource option: adopt the existing resource with this id. */
  import?: string;
  /** Props passed as secrets (`pulumi.secret`). */
  secrets?: string[];
  /** Outputs to declare on the resource object although they are not inputs (for reads). */
  expose?: string[];
}

/** A conformance program. */
export interface ProgramSpec {
  resources: ResourceSpec[];
  outputs?: Record<string, string | { value: unknown }>;
  throwAfterRegistering?: string;
}

/** The stack config that makes the conformance program declare `spec`. */
export function programConfig(spec: ProgramSpec): StackConfig {
  return { 'conformance:program': { value: JSON.stringify(spec), secret: false } };
}

/** A fresh stack running the conformance program. */
export function conformanceStack(): ConformanceStack {
  return new ConformanceStack(CONFORMANCE_PROGRAM, 'conformance');
}

/** A stack whose runs take a program description. */
export class ConformanceStack extends TestStack {
  /** Runs `kind` with the program `spec`. */
  deploy(kind: Parameters<TestStack['run']>[0], spec: ProgramSpec, extra: Parameters<TestStack['run']>[2] = {}): Promise<RunRecord> {
    return this.run(kind, programConfig(spec), extra);
  }

  /** The URN of a top-level resource of this stack. */
  urn(name: string, type = THING): string {
    return `urn:pulumi:${this.stack}::${this.project}::${type}::${name}`;
  }

  /** The stored resources. */
  resources(): ResourceState[] {
    return stateResources(this.state);
  }

  /** The live (not pending-delete) stored state of a resource by name. */
  resource(name: string): ResourceState | undefined {
    return this.resources().find((r) => r.urn.endsWith(`::${name}`) && !r.delete);
  }

  /** Provider calls since the last call of this method. */
  calls(): { op: string; urn: string; id?: string }[] {
    if (!existsSync(this.log)) return [];
    const lines = readFileSync(this.log, 'utf8').trim().split('\n').filter(Boolean);
    writeFileSync(this.log, '');
    return lines.map((l) => JSON.parse(l) as { op: string; urn: string; id?: string });
  }

  /** The stack's stored outputs. */
  outputs(): Record<string, unknown> {
    return this.resources().find((r) => r.type === 'pulumi:pulumi:Stack')?.outputs ?? {};
  }
}

/** The resources of an exported deployment. */
export function stateResources(state: UntypedDeployment | undefined): ResourceState[] {
  return ((state?.deployment as { resources?: ResourceState[] } | undefined)?.resources ?? []);
}

/** The pending operations of an exported deployment. */
export function statePending(state: UntypedDeployment | undefined): unknown[] {
  return ((state?.deployment as { pending_operations?: unknown[] } | undefined)?.pending_operations ?? []);
}

/** `op` of each finished step on resources named `name`, in order. */
export function opsOf(run: RunRecord, name: string): string[] {
  return run.steps.filter((s) => s.phase === 'done' && s.urn.endsWith(`::${name}`)).map((s) => s.op);
}

/** Every finished step as `op name`, for resources of the given type. */
export function stepList(run: RunRecord, type = THING): string[] {
  return run.steps.filter((s) => s.phase === 'done' && s.type === type).map((s) => `${s.op} ${s.urn.slice(s.urn.lastIndexOf('::') + 2)}`);
}

/** Error diagnostics of a run. */
export function errorsOf(run: RunRecord): string[] {
  return run.diags.filter((d) => d.severity === 'error').map((d) => d.message);
}

/** True when any save of the run (or its final state) holds the unknown sentinel. */
export function persistedUnknown(run: RunRecord): boolean {
  return run.saves.some((s) => s.text.includes(UNKNOWN));
}
