import { randomBytes, randomUUID } from 'node:crypto';
import type { Storage } from '../../ports/index.js';

/** What each contract suite needs from an adapter under test. */
export interface ContractEnv {
  /** Built with an injectable clock (`now`) driven by `clock`. */
  storage: Storage;
  clock: { advance(ms: number): void; /** The adapter's current time, epoch milliseconds. */ now(): number };
  cleanup(): Promise<void>;
  /** True when the string appears anywhere in the adapter's persisted data (used to prove tokens are hashed). */
  findPlaintext?(s: string): Promise<boolean>;
}

/** Builds a fresh adapter; called once per suite. */
export type ContractSetup = () => Promise<ContractEnv>;

/** Unique ids so suites can share one backing store without seeing each other's data. */
export function uniqueOrg(): string {
  return `org-${randomBytes(6).toString('hex')}`;
}

export function uniqueId(): string {
  return randomUUID();
}
