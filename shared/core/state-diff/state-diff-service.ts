import { InvalidInputError } from '../errors.js';
import { formatStackRef } from '../names.js';
import type { StackRecord } from '../../ports/stack-store.js';
import { audited } from '../audit/audit.js';
import { loadStack } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { deploymentOfVersion } from '../state/stack-state.js';
import { diffDeployments } from './diff.js';
import { settleSecrets } from './secrets.js';
import type { StateDiff, StateDiffService } from './types.js';

/** Version 0 is the stack before its first update: no resources. */
const EMPTY: Record<string, unknown> = { resources: [] };

function checkedVersion(value: number | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidInputError(`Invalid ${what} version '${String(value)}': versions are whole numbers from 0 (0 is the stack before its first update).`);
  }
  return value;
}

async function resourcesAt(deps: ServiceDeps, stack: StackRecord, version: number): Promise<Record<string, unknown>> {
  if (version === 0) return EMPTY;
  return (await deploymentOfVersion(deps, stack, version)).deployment;
}

/** `stack diff` between two stored versions, computed by the pure `diffDeployments`, secrets settled on the stack's key. */
export function createStateDiffService(deps: ServiceDeps): StateDiffService {
  return {
    async diffVersions(principal, ref, versions, options = {}) {
      const reveal = options.showSecrets === true;
      const from = checkedVersion(versions.from, "'from'");
      const to = checkedVersion(versions.to, "'to'");
      const stack = await loadStack(deps, principal, ref, reveal ? 'decrypt' : 'history');
      const toVersion = to ?? stack.version;
      const fromVersion = from ?? Math.max(0, toVersion - 1);
      const [olds, news] = await Promise.all([resourcesAt(deps, stack, fromVersion), resourcesAt(deps, stack, toVersion)]);
      const diff: StateDiff = { from: fromVersion, to: toVersion, ...diffDeployments(olds, news) };
      if (!reveal) return settleSecrets(deps.keys, stack, diff, false);
      const name = formatStackRef(stack);
      const spec = { org: stack.org, event: 'secret.decrypted', target: name, description: `decrypted the secrets of the diff of ${name} from version ${fromVersion} to ${toVersion}` } as const;
      return audited(deps, principal, spec, () => settleSecrets(deps.keys, stack, diff, true));
    },
  };
}
