/** Events the engine emits while it runs; the CLI renders them, tests assert on them. */

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
  | 'refresh'
  | 'discard';

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
  error?: string;
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
  diag?(e: DiagEvent): void;
  /** Raw program stdout/stderr text. */
  programOutput?(stream: 'stdout' | 'stderr', text: string): void;
}

/** Counts of completed steps by kind (Pulumi's `resourceChanges`). */
export type ChangeSummary = Partial<Record<StepOp, number>>;
