/** What `stackyard migrate` reads from any source: stacks, their state, tags, history and secrets. */
import type { UntypedDeployment } from '../backend/backend.js';
import type { SecretsDecrypter, StackFileSecrets } from '../secrets/source-secrets.js';

/** A history entry as the source kept it: Pulumi's `UpdateInfo`, config in the service's `{string, secret, object}`. */
export interface SourceHistoryEntry {
  kind: string;
  result: 'succeeded' | 'failed';
  /** Epoch seconds. */
  startTime: number;
  endTime: number;
  message: string;
  environment: Record<string, string>;
  /** `{"ns:key": {string, secret, object}}`, secret strings as the source's ciphertexts. */
  config: Record<string, { string: string; secret: boolean; object: boolean }>;
  resourceChanges?: Record<string, number>;
  /** The state the operation ended with, when the source kept it. */
  deployment(): Promise<UntypedDeployment | undefined>;
}

export interface SourceStack {
  /** How the source names it (`web/dev`, `dev`, `acme/web/dev`). */
  readonly name: string;
  readonly org?: string;
  /** `undefined` when the source cannot tell (a legacy DIY stack without resources or tags). */
  readonly project?: string;
  readonly stack: string;
  tags(): Promise<Record<string, string>>;
  /** Why the stack cannot be read consistently now (an update holds it), or `undefined`. */
  busy(): Promise<string | undefined>;
  /** The current state; `undefined` for a stack that was never updated. */
  current(): Promise<UntypedDeployment | undefined>;
  /** Completed operations, oldest first. */
  history(): Promise<SourceHistoryEntry[]>;
  /** Opens the secrets of one of this stack's deployments (by the provider it names, or the stack's own). */
  stateSecrets(deployment: UntypedDeployment): Promise<SecretsDecrypter>;
  /** Opens the `secure:` values of this stack's `Pulumi.<stack>.yaml`, given the settings the file carries. */
  configSecrets(file: StackFileSecrets): Promise<SecretsDecrypter>;
}

export interface MigrationSource {
  /** Identifies the source in the `stackyard:migrated-from` tag and in messages. */
  readonly id: string;
  readonly kind: 'diy' | 'service';
  stacks(): Promise<SourceStack[]>;
  close(): Promise<void>;
}
