/** Events the engine emits while it runs; the CLI renders them, tests assert on them. */
import type { ResourceState } from '../state/deployment.js';
import type { PolicyEvent } from './policy-events.js';

/** Kinds of step, named as Pulumi names them. */
export type StepOp =
  | 'same'
  | 'create'
  | 'update'
  | 'delete'
  | 'replace'
  | 'create-replacement'
  | 'delete-replaced'
  | 'read'
  | 'import'
  | 'refresh'
  | 'discard';

/** Kinds of a detailed diff entry (`apitype.DiffKind`). */
export type DiffKind = 'add' | 'add-replace' | 'delete' | 'delete-replace' | 'update' | 'update-replace';

/** A provider's detailed diff: per property path, the kind of change and whether it compares old inputs. */
export type DetailedDiff = Record<string, { kind: DiffKind; inputDiff: boolean }>;

/** A step started, finished or failed. */
export interface StepEvent {
  op: StepOp;
  urn: string;
  type: string;
  phase: 'start' | 'done' | 'failed';
  preview: boolean;
  /** Top-level keys that changed (updates and replaces). */
  diffKeys?: string[];
  /** Keys forcing a replacement. */
  replaceKeys?: string[];
  /** The provider's detailed diff (property path → kind), when it gave one. */
  detailedDiff?: DetailedDiff;
  error?: string;
  /** The state before the step (absent for creates and reads). Secrets are in plaintext: mask before showing. */
  old?: ResourceState;
  /**
   * The state the step proposes (at `start`: inputs, outputs not known yet) or produced (at `done`); absent for
   * deletes. Secrets are in plaintext: mask before showing.
   */
  new?: ResourceState;
}

/** A component or the stack registered its outputs (RegisterResourceOutputs). */
export interface OutputsEvent {
  urn: string;
  type: string;
  state: ResourceState;
}

/** A diagnostic message from the engine, the program or a plugin. */
export interface DiagEvent {
  severity: 'debug' | 'info' | 'warning' | 'error';
  message: string;
  urn?: string;
}

/** Observers of a run; every member is optional. */
export interface EngineEvents {
  step?(e: StepEvent): void;
  outputs?(e: OutputsEvent): void;
  diag?(e: DiagEvent): void;
  /** Raw program stdout/stderr text. */
  programOutput?(stream: 'stdout' | 'stderr', text: string): void;
  /** A policy pack's violation, remediation or summary. */
  policy?(e: PolicyEvent): void;
}

/** Counts of completed steps by kind (Pulumi's `resourceChanges`). */
export type ChangeSummary = Partial<Record<StepOp, number>>;

/** Observers that receive every event, in order. */
export function combineEvents(...all: (EngineEvents | undefined)[]): EngineEvents {
  const list = all.filter((e): e is EngineEvents => e !== undefined);
  return {
    step: (e) => list.forEach((l) => l.step?.(e)),
    outputs: (e) => list.forEach((l) => l.outputs?.(e)),
    diag: (e) => list.forEach((l) => l.diag?.(e)),
    programOutput: (s, t) => list.forEach((l) => l.programOutput?.(s, t)),
    policy: (e) => list.forEach((l) => l.policy?.(e)),
  };
}
