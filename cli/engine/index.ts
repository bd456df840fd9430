/** The engine's public edge: run a deployment, render its events, and the state types part 2 plugs into. */
export { runDeployment, type DeploymentKind, type DeploymentOptions, type DeploymentResult } from './run-deployment.js';
export {
  loadDeployment,
  type Checkpoint,
  type DeploymentV3,
  type ResourceState,
  type SecretsCrypter,
  type Snapshot,
  type SnapshotPersister,
  type UntypedDeployment,
} from './deployment.js';
export { createDisplay, renderValue, type Display, type DisplayOptions } from './display.js';
export type { ChangeSummary, DiagEvent, EngineEvents, StepEvent, StepOp } from './events.js';
export type { ConfigValue, NodeRuntimeOptions, ProgramSpec, StackConfig } from './language-host.js';
export type { ProjectPlugin } from './plugin-discovery.js';
export type { StackReader } from './builtin-provider.js';
export type { PropertyMap, PropertyValue } from './properties.js';
export {
  OperationUsageError,
  runOperation,
  type OperationBackend,
  type OperationCommand,
  type OperationFlags,
  type OperationRequest,
  type OperationSession,
} from './operation.js';
