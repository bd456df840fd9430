/**
 * The wire types of Pulumi's journaling protocol (`apitype/journal.go`) and the parts of `apitype.DeploymentV3`
 * the replayer touches. Resources and operations stay loosely typed: the server never interprets property values,
 * it only moves whole resource objects around and rewrites reference fields.
 */
import type { DeploymentV3, OperationV2, ResourceV3, SecretsProvidersV1 } from '../checkpoints/index.js';

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
