import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import type { EnabledPolicyPack, PolicyGroupRecord, PolicyPackVersionRecord } from '../../ports/policy-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import { audited } from '../audit/audit.js';
import { requireOrgAction } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { validateSchema } from './config-schema.js';
import { allGroups, DEFAULT_POLICY_GROUP, holdsStack, isGroupName, loadGroup, orgStacks } from './group-records.js';
import { checkPackName } from './pack-request.js';
import { groupSummary, groupView, type PolicyGroupSummaryView, type PolicyGroupView } from './views.js';

/** Pulumi's `PulumiStackReference`. */
export interface StackReference {
  name: string;
  routingProject?: string;
}

/** Pulumi's `PolicyPackMetadata` as a PATCH carries it. */
export interface PackReference {
  name: string;
  versionTag?: string;
  version?: number;
  config?: Record<string, unknown>;
}

/** Pulumi's `UpdatePolicyGroupRequest` (Insights accounts and renames are refused by name). */
export interface UpdatePolicyGroupRequest {
  newName?: string;
  addStack?: StackReference;
  removeStack?: StackReference;
  addPolicyPack?: PackReference;
  removePolicyPack?: PackReference;
  stacks?: StackReference[];
  policyPacks?: PackReference[];
  addInsightsAccount?: unknown;
  removeInsightsAccount?: unknown;
  insightsAccounts?: unknown;
}

/** Pulumi's `CreatePolicyGroupRequest`. */
export interface CreatePolicyGroupRequest {
  name: string;
  entityType?: string;
  mode?: string;
}

const RETRIES = 8;

/** A stack of the organization by Pulumi's reference: `routingProject` and `name`. */
function findStack(stacks: readonly StackRecord[], ref: StackReference): StackRecord {
  const found = stacks.find((s) => s.stack === ref.name && (ref.routingProject === undefined || ref.routingProject === '' || s.project === ref.routingProject));
  if (!found) throw new NotFoundError(`Stack '${ref.routingProject ?? ''}/${ref.name}' not found in the organization: name it as <project>/<stack>.`);
  return found;
}

/** Checks each policy's config against its schema and that it names a policy of the pack. */
function checkConfig(version: PolicyPackVersionRecord, config: Record<string, unknown>): void {
  for (const [policy, value] of Object.entries(config)) {
    const declared = version.policies.find((p) => p.name === policy);
    if (!declared) throw new InvalidInputError(`Policy pack '${version.name}' has no policy '${policy.slice(0, 100)}': config keys are the pack's policy names.`);
    const schema = declared.configSchema as Record<string, unknown> | undefined;
    // A policy's config may carry only enforcementLevel besides what its schema declares.
    const own = value && typeof value === 'object' && !Array.isArray(value) ? { ...(value as Record<string, unknown>) } : value;
    if (own && typeof own === 'object') delete (own as Record<string, unknown>).enforcementLevel;
    const errors = schema ? validateSchema({ type: 'object', ...schema }, own) : [];
    if (errors.length > 0) throw new InvalidInputError(`Invalid config for policy '${policy}' of pack '${version.name}': ${errors.join('; ')}.`);
  }
}

/** The group verbs of `PolicyService` (policy-service.ts). */
export function createGroupVerbs(deps: ServiceDeps) {
  const store = () => deps.storage.policies;

  async function enabled(org: string, ref: PackReference): Promise<EnabledPolicyPack> {
    const versions = (await store().listVersions(org)).filter((v) => v.name === checkPackName(ref.name) && v.status === 'published');
    const version = ref.versionTag
      ? versions.find((v) => v.versionTag === ref.versionTag)
      : ref.version
        ? versions.find((v) => v.version === ref.version)
        : versions.at(-1);
    if (!version) {
      throw new NotFoundError(`Policy pack '${ref.name}' has no published version${ref.versionTag ? ` '${ref.versionTag}'` : ''}: publish it with 'stackyard policy publish'.`);
    }
    if (ref.config) checkConfig(version, ref.config);
    return { name: version.name, versionTag: version.versionTag, version: version.version, displayName: version.displayName, ...(ref.config ? { config: ref.config } : {}) };
  }

  function withStack(group: PolicyGroupRecord, stack: StackRecord, member: boolean): PolicyGroupRecord {
    if (group.isOrgDefault) {
      const excluded = group.excludedStacks.filter((id) => id !== stack.id);
      return { ...group, excludedStacks: member ? excluded : [...excluded, stack.id] };
    }
    const stacks = group.stacks.filter((id) => id !== stack.id);
    return { ...group, stacks: member ? [...stacks, stack.id] : stacks };
  }

  /** Applies one PATCH to a group as read; every reference is checked before anything is written. */
  async function patched(org: string, group: PolicyGroupRecord, request: UpdatePolicyGroupRequest): Promise<PolicyGroupRecord> {
    if (request.addInsightsAccount !== undefined || request.removeInsightsAccount !== undefined || request.insightsAccounts !== undefined) {
      throw new InvalidInputError('Stackyard has no Insights accounts: a policy group holds stacks only.');
    }
    if (request.newName !== undefined && request.newName !== group.name) {
      throw new InvalidInputError('Renaming a policy group is not supported by Stackyard: create a group with the new name and move the stacks and packs to it.');
    }
    let next = group;
    const needStacks = request.addStack || request.removeStack || request.stacks;
    const stacks = needStacks ? await orgStacks(deps, org) : [];
    if (request.stacks) {
      const ids = request.stacks.map((ref) => findStack(stacks, ref).id);
      next = group.isOrgDefault ? { ...next, excludedStacks: stacks.map((s) => s.id).filter((id) => !ids.includes(id)) } : { ...next, stacks: [...new Set(ids)] };
    }
    if (request.addStack) next = withStack(next, findStack(stacks, request.addStack), true);
    if (request.removeStack) next = withStack(next, findStack(stacks, request.removeStack), false);
    if (request.policyPacks) {
      const packs: EnabledPolicyPack[] = [];
      for (const ref of request.policyPacks) packs.push(await enabled(org, ref));
      next = { ...next, packs };
    }
    if (request.addPolicyPack) {
      // A group runs one version of a pack: enabling another replaces it, as `pulumi policy enable` does.
      const pack = await enabled(org, request.addPolicyPack);
      next = { ...next, packs: [...next.packs.filter((p) => p.name !== pack.name), pack] };
    }
    if (request.removePolicyPack) {
      const { name, versionTag } = request.removePolicyPack;
      const kept = next.packs.filter((p) => !(p.name === name && (!versionTag || p.versionTag === versionTag)));
      if (kept.length === next.packs.length) {
        throw new NotFoundError(`Policy pack '${name.slice(0, 100)}'${versionTag ? ` version '${versionTag.slice(0, 100)}'` : ''} is not enabled in policy group '${group.name}'.`);
      }
      next = { ...next, packs: kept };
    }
    return next;
  }

  async function members(group: PolicyGroupRecord, stacks?: readonly StackRecord[]): Promise<StackRecord[]> {
    return (stacks ?? (await orgStacks(deps, group.org))).filter((s) => holdsStack(group, s.id));
  }

  return {
    async listGroups(principal: Principal, org: string): Promise<{ policyGroups: PolicyGroupSummaryView[] }> {
      requireOrgAction(principal, org, 'read-policies');
      const stacks = await orgStacks(deps, org);
      const groups = await allGroups(deps, org);
      return { policyGroups: await Promise.all(groups.map(async (g) => groupSummary(g, await members(g, stacks)))) };
    },

    async getGroup(principal: Principal, org: string, name: string): Promise<PolicyGroupView> {
      requireOrgAction(principal, org, 'read-policies');
      const group = await loadGroup(deps, org, name);
      return groupView(group, await members(group));
    },

    async createGroup(principal: Principal, org: string, request: CreatePolicyGroupRequest): Promise<void> {
      requireOrgAction(principal, org, 'manage-policies');
      if (!isGroupName(request.name)) throw new InvalidInputError(`Invalid policy group name '${request.name.slice(0, 100)}': use 1-100 letters, digits, '-', '_' or '.'.`);
      if ((request.entityType ?? 'stacks') !== 'stacks') throw new InvalidInputError(`Stackyard's policy groups hold stacks only; got entityType '${String(request.entityType).slice(0, 40)}'.`);
      const mode = request.mode || 'preventative';
      if (mode !== 'preventative' && mode !== 'audit') throw new InvalidInputError(`Unknown mode '${mode.slice(0, 40)}': expected preventative or audit.`);
      if (request.name === DEFAULT_POLICY_GROUP) throw new ConflictError(`Policy group '${DEFAULT_POLICY_GROUP}' already exists: every organization has it.`);
      const group: PolicyGroupRecord = { org, name: request.name, isOrgDefault: false, mode, stacks: [], excludedStacks: [], packs: [], modifiedAt: deps.now(), modifiedBy: principal.login, revision: 1 };
      await audited(deps, principal, { org, event: 'policy.group-created', target: request.name, description: `created policy group ${request.name}` }, async () => {
        try {
          await store().putGroup(group, undefined);
        } catch (error) {
          if (error instanceof ConflictError) throw new ConflictError(`Policy group '${request.name}' already exists in '${org}'.`);
          throw error;
        }
      });
    },

    async updateGroup(principal: Principal, org: string, name: string, request: UpdatePolicyGroupRequest): Promise<void> {
      requireOrgAction(principal, org, 'manage-policies');
      for (let attempt = 0; ; attempt++) {
        const group = await loadGroup(deps, org, name);
        const next = { ...(await patched(org, group, request)), modifiedAt: deps.now(), modifiedBy: principal.login, revision: group.revision + 1 };
        const spec = { org, event: 'policy.group-changed', target: name, description: `changed policy group ${name}: ${describePatch(request)}` } as const;
        try {
          await audited(deps, principal, spec, () => store().putGroup(next, group.revision === 0 ? undefined : group.revision));
          return;
        } catch (error) {
          if (!(error instanceof ConflictError) || attempt >= RETRIES) throw error;
        }
      }
    },

    async deleteGroup(principal: Principal, org: string, name: string): Promise<void> {
      requireOrgAction(principal, org, 'manage-policies');
      if (name === DEFAULT_POLICY_GROUP) throw new InvalidInputError(`The organization's '${DEFAULT_POLICY_GROUP}' cannot be deleted.`);
      await loadGroup(deps, org, name);
      await audited(deps, principal, { org, event: 'policy.group-deleted', target: name, description: `deleted policy group ${name}` }, () => store().deleteGroup(org, name));
    },
  };
}

/** What a PATCH did, in a secret-free sentence for the audit log (configs are left out). */
function describePatch(request: UpdatePolicyGroupRequest): string {
  const parts: string[] = [];
  const stack = (ref: StackReference) => `${ref.routingProject ? `${ref.routingProject}/` : ''}${ref.name}`;
  const pack = (ref: PackReference) => `${ref.name}${ref.versionTag ? `@${ref.versionTag}` : ''}`;
  if (request.addStack) parts.push(`added stack ${stack(request.addStack)}`);
  if (request.removeStack) parts.push(`removed stack ${stack(request.removeStack)}`);
  if (request.stacks) parts.push(`set stacks to ${request.stacks.map(stack).join(', ') || 'none'}`);
  if (request.addPolicyPack) parts.push(`enabled ${pack(request.addPolicyPack)}`);
  if (request.removePolicyPack) parts.push(`disabled ${pack(request.removePolicyPack)}`);
  if (request.policyPacks) parts.push(`set packs to ${request.policyPacks.map(pack).join(', ') || 'none'}`);
  return parts.join('; ') || 'no change';
}
