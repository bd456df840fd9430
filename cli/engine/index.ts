/** The engine's public edge: run a deployment, render its events, and the state types part 2 plugs into. */
export { PendingOperationsError, runDeployment, type DeploymentKind, type DeploymentOptions, type DeploymentResult } from './run-deployment.js';
export {
  loadDeployment,
  type Checkpoint,
  type DeploymentV3,
  type JournalPersister,
  type ResourceState,
  type SecretsCrypter,
  type Snapshot,
  type SnapshotPersister,
  type UntypedDeployment,
} from './state/deployment.js';
export { colorEnabled, createDisplay, terminalOf } from './display/display.js';
export type { ColorMode, Display, DisplayOptions, TerminalInfo } from './display/display-types.js';
export { renderValue } from './display/render-text.js';
export { createEngineEventLog, type EngineEvent, type OperationStatus } from './display/engine-events.js';
export type { ChangeSummary, DiagEvent, EngineEvents, OutputsEvent, StepEvent, StepOp } from './display/events.js';
export { handleInterrupts, InterruptedError, type InterruptHandling } from './interrupts.js';
export { describeLeaseHolder, waitForLease, type LeaseWaitOptions, type LeaseWaitTiming } from './lease-wait.js';
export type { ConfigValue, StackConfig } from './config/program-config.js';
export type { NodeRuntimeOptions, ProgramSpec } from './program/language-host.js';
export type { ProjectPlugin } from './plugins/plugin-discovery.js';
export type { StackReader } from './plugins/providers/builtin-provider.js';
export type { PropertyMap, PropertyValue } from './resource/properties.js';
export {
  OperationUsageError,
  runOperation,
  type BeginOptions,
  type OperationBackend,
  type OperationCommand,
  type OperationFlags,
  type OperationOutcome,
  type OperationRequest,
  type OperationSession,
} from './operation.js';
