/**
 * The engine's view of an update plan (Pulumi's `deploy.Plan`): per URN, the goal the program is expected to give,
 * the operations it may take in order, and the proposed outputs. Secrets are plain secret values here; the file
 * form (`plan-file.ts`) carries them encrypted.
 */
import type { StepOp } from '../display/events.js';
import type { PropertyMap } from '../resource/properties.js';

/** Pulumi's `PlanDiff`: the properties a goal adds, deletes and updates (with their new values). */
export interface PlanDiff {
  adds: PropertyMap;
  deletes: string[];
  updates: PropertyMap;
}

/** The resource options a plan holds a program to (Pulumi's `GoalPlan` without its diffs). */
export interface PlanGoalOptions {
  type: string;
  name: string;
  custom: boolean;
  parent?: string;
  protect: boolean;
  dependencies: string[];
  provider?: string;
  propertyDependencies: Record<string, string[]>;
  deleteBeforeReplace?: boolean;
  ignoreChanges: string[];
  additionalSecretOutputs: string[];
  /** Alias URNs; Pulumi's structured aliases are kept as they came (`structuredAliases`). */
  aliases: string[];
  /** The `import` option's id. */
  id?: string;
  /** Seconds, as Pulumi's `CustomTimeouts` holds them. */
  customTimeouts: { create?: number; update?: number; delete?: number; read?: number };
}

/** Pulumi's `GoalPlan`. */
export interface PlanGoal extends PlanGoalOptions {
  inputDiff: PlanDiff;
  outputDiff: PlanDiff;
}

/** Pulumi's `ResourcePlan`: no goal means the resource is expected to be deleted. */
export interface ResourcePlan {
  goal?: PlanGoal;
  ops: StepOp[];
  outputs?: PropertyMap;
  /** The random seed given to the provider's Check, base64 as in the file. */
  seed?: string;
}

/**
 * What stackyard adds to a plan (beyond Pulumi, in a field its reader ignores): the state and program it was computed
 * from, so an update can refuse a plan the stack has moved on from.
 */
export interface PlanOrigin {
  /** The stack's version (its last update) when the plan was made; absent for a stack without history. */
  stackVersion?: number;
  /** sha256 of the state the preview ran against (`stack export`'s deployment). */
  checkpointDigest: string;
  /** sha256 of the program's files, encrypted with the stack's key (a digest of guessable files must not leak). */
  programDigest: string;
  /** sha256 of the stack's configuration (secrets included), encrypted with the stack's key. */
  configDigest: string;
  /**
   * The plan file's path from the program's folder, when it was saved inside it and uploaded: the program digests
   * leave it out, so `up --plan <id>` (which reads no file) leaves the same file out.
   */
  planFile?: string;
  /** The plan's id on the service, written into the file after the upload. */
  planId?: string;
}

/** Pulumi's `Plan`. */
export interface DeploymentPlan {
  manifest: { time: string; magic: string; version: string };
  /** The configuration as Pulumi's `config.Map` writes it (secure values encrypted). */
  config?: Record<string, unknown>;
  resourcePlans: Map<string, ResourcePlan>;
  origin?: PlanOrigin;
}

/** An empty plan diff. */
export function emptyPlanDiff(): PlanDiff {
  return { adds: {}, deletes: [], updates: {} };
}
