import type { StackRecord } from '../../ports/stack-store.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { effectiveRequirement, type EffectiveRequirement } from './rules.js';

/** The stack's effective requirement now: its own setting and its organization's rules, read together. */
export async function requirementOf(deps: ServiceDeps, stack: StackRecord): Promise<EffectiveRequirement> {
  const [own, rules] = await Promise.all([deps.storage.approvals.getStackRequirement(stack.id), deps.storage.approvals.listRules(stack.org)]);
  return effectiveRequirement({ project: stack.project, stack: stack.stack, tags: stack.tags }, own, rules);
}
