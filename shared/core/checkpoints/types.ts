/** The deployment document as the Pulumi CLI exchanges it, and as checkpoints store it. */

/** `{version, features?, deployment}` as the Pulumi CLI exchanges it (UntypedDeployment). */
export interface UntypedDeployment {
  version: number;
  features?: string[];
  deployment: Record<string, unknown>;
}

/**
 * A checkpoint as it came over the wire: its decoded bytes, read in chunks as they are inflated (each call of
 * `chunks` starts from the beginning, and throws what decoding the body throws), and, when the client compressed it,
 * those gzip bytes, which are stored as they are once the decoded document checks out, instead of being compressed a
 * second time.
 */
export interface CheckpointUpload {
  chunks(): AsyncIterable<Uint8Array>;
  gzipped?: Uint8Array;
}

/** `apitype.ResourceV3`: `urn`, `custom` and `type` are always present; every other key is omitted when empty. */
export interface ResourceV3 {
  urn: string;
  custom: boolean;
  type: string;
  delete?: boolean;
  id?: string;
  parent?: string;
  provider?: string;
  dependencies?: string[];
  propertyDependencies?: Record<string, string[] | null>;
  pendingReplacement?: boolean;
  deletedWith?: string;
  replaceWith?: string[];
  aliases?: string[];
  viewOf?: string;
  taint?: boolean;
  refreshBeforeUpdate?: boolean;
  resourceHooks?: Record<string, unknown>;
  extensionRef?: string;
  snippetID?: string;
  [key: string]: unknown;
}

export type OperationType = 'creating' | 'updating' | 'deleting' | 'reading' | 'importing';

/** `apitype.OperationV2`: a resource operation that began and has not finished. */
export interface OperationV2 {
  resource: ResourceV3;
  type: OperationType;
}

export interface SecretsProvidersV1 {
  type: string;
  state?: unknown;
}

/** `apitype.DeploymentV3` (schema versions 3 and 4 share it). */
export interface DeploymentV3 {
  manifest: { time: string; magic: string; version: string; plugins?: unknown[] };
  secrets_providers?: SecretsProvidersV1;
  resources?: ResourceV3[];
  pending_operations?: OperationV2[];
  metadata?: Record<string, unknown>;
  snippets?: unknown[];
  extensions?: Record<string, unknown>;
}

/** `apitype.UntypedDeployment` with a parsed deployment: what export serves and checkpoints store. */
export interface VersionedDeployment {
  version: number;
  features?: string[];
  deployment: DeploymentV3;
}
