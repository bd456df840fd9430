/**
 * The wire types of Pulumi's journaling protocol (`apitype/journal.go`) and the parts of `apitype.DeploymentV3`
 * the replayer touches. Resources and operations stay loosely typed: the server never interprets property values,
 * it only moves whole resource objects around and rewrites reference fields.
 */

/** Kinds of journal entry, numbered as the CLI sends them. */
export const JournalEntryKind = {
  Begin: 0,
  Success: 1,
  Failure: 2,
  RefreshSuccess: 3,
  Outputs: 4,
  Write: 5,
  SecretsManager: 6,
  RebuiltBaseState: 7,
  ExtensionParameterize: 8,
  Snippets: 9,
} as const;

export type JournalEntryKind = (typeof JournalEntryKind)[keyof typeof JournalEntryKind];

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

/** `apitype.JournalEntry`. `removeOld`/`removeNew` are always present on the wire (null when unset). */
export interface JournalEntry {
  version: number;
  kind: JournalEntryKind;
  sequenceID: number;
  operationID: number;
  removeOld?: number | null;
  removeNew?: number | null;
  pendingReplacementOld?: number | null;
  pendingReplacementNew?: number | null;
  deleteOld?: number | null;
  deleteNew?: number | null;
  state?: ResourceV3 | null;
  operation?: OperationV2 | null;
  isRefresh?: boolean;
  secretsProvider?: SecretsProvidersV1 | null;
  snippets?: unknown[] | null;
  newSnapshot?: DeploymentV3 | null;
  extensionRef?: string | null;
  extension?: unknown;
  requiresByteString?: boolean;
}

/** Body of `PATCH …/update/{id}/journalentries`. */
export interface JournalEntries {
  entries?: JournalEntry[];
}
