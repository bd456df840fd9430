import { approvalStoreContract } from './approval-store.contract.js';
import { auditStoreContract } from './audit-store.contract.js';
import { checkpointStoreContract } from './checkpoint-store.contract.js';
import { consoleSessionStoreContract } from './console-session-store.contract.js';
import { deploymentStoreContract } from './deployment-store.contract.js';
import { driftStoreContract } from './drift-store.contract.js';
import { scheduleStoreContract } from './schedule-store.contract.js';
import { environmentStoreContract } from './environment-store.contract.js';
import { hookStoreContract } from './hook-store.contract.js';
import { identityStoreContract } from './identity-store.contract.js';
import { keyServiceContract } from './key-service.contract.js';
import { leaseStoreContract } from './lease-store.contract.js';
import { policyStoreContract } from './policy-store.contract.js';
import type { ContractSetup } from './setup.js';
import { sourceArchiveStoreContract } from './source-archive-store.contract.js';
import { stackStoreContract } from './stack-store.contract.js';
import { updateStoreContract } from './update-store.contract.js';

export type { ContractEnv, ContractSetup } from './setup.js';
export {
  approvalStoreContract,
  auditStoreContract,
  checkpointStoreContract,
  consoleSessionStoreContract,
  deploymentStoreContract,
  driftStoreContract,
  environmentStoreContract,
  hookStoreContract,
  identityStoreContract,
  keyServiceContract,
  leaseStoreContract,
  scheduleStoreContract,
  policyStoreContract,
  sourceArchiveStoreContract,
  stackStoreContract,
  updateStoreContract,
};

/** Registers every storage port's contract suite (vitest `describe` blocks) against one adapter. */
export function runStorageContracts(adapterName: string, setup: ContractSetup): void {
  checkpointStoreContract(adapterName, setup);
  stackStoreContract(adapterName, setup);
  updateStoreContract(adapterName, setup);
  leaseStoreContract(adapterName, setup);
  keyServiceContract(adapterName, setup);
  identityStoreContract(adapterName, setup);
  hookStoreContract(adapterName, setup);
  consoleSessionStoreContract(adapterName, setup);
  auditStoreContract(adapterName, setup);
  environmentStoreContract(adapterName, setup);
  deploymentStoreContract(adapterName, setup);
  driftStoreContract(adapterName, setup);
  approvalStoreContract(adapterName, setup);
  scheduleStoreContract(adapterName, setup);
  policyStoreContract(adapterName, setup);
  sourceArchiveStoreContract(adapterName, setup);
}
