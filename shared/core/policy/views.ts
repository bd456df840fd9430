import type { EnabledPolicyPack, PolicyGroupRecord, PolicyPackVersionRecord } from '../../ports/policy-store.js';
import type { StackRecord } from '../../ports/stack-store.js';

/** Pulumi's `ListPolicyPacksResponse`. */
export interface PolicyPackList {
  policyPacks: { name: string; displayName: string; versions: number[]; versionTags: string[] }[];
}

/** Pulumi's `GetPolicyPackResponse`. */
export interface PackVersionView {
  name: string;
  displayName: string;
  version: number;
  versionTag: string;
  policies: Record<string, unknown>[];
  applied: boolean;
}

/** Pulumi's `PolicyPackMetadata`. */
export interface PackMetadataView {
  name: string;
  displayName: string;
  version: number;
  versionTag: string;
  config?: Record<string, unknown>;
}

/** Pulumi's `RequiredPolicy`. */
export interface RequiredPolicyView extends PackMetadataView {
  packLocation: string;
}

/** Pulumi's `PolicyGroupSummary`. */
export interface PolicyGroupSummaryView {
  name: string;
  isOrgDefault: boolean;
  numStacks: number;
  entityType: 'stacks';
  mode: PolicyGroupRecord['mode'];
  numEnabledPolicyPacks: number;
}

/** Pulumi's `GetPolicyGroupResponse`. */
export interface PolicyGroupView {
  name: string;
  isOrgDefault: boolean;
  entityType: 'stacks';
  mode: PolicyGroupRecord['mode'];
  stacks: { name: string; routingProject: string }[];
  appliedPolicyPacks: PackMetadataView[];
  accounts: string[];
}

/** Where the CLI fetches a version's tarball: a route of this API that takes the caller's token (never one in the URL). */
export function packLocation(base: string, org: string, name: string, tag: string): string {
  return `${base}/api/orgs/${org}/policypacks/${name}/versions/${encodeURIComponent(tag)}/download`;
}

/** Published versions grouped by pack, in version order (the store lists them ordered). */
export function packsList(published: readonly PolicyPackVersionRecord[]): PolicyPackList {
  const packs = new Map<string, PolicyPackList['policyPacks'][number]>();
  for (const v of published) {
    const pack = packs.get(v.name) ?? { name: v.name, displayName: v.displayName, versions: [], versionTags: [] };
    pack.displayName = v.displayName;
    pack.versions.push(v.version);
    pack.versionTags.push(v.versionTag);
    packs.set(v.name, pack);
  }
  return { policyPacks: [...packs.values()] };
}

export function packView(record: PolicyPackVersionRecord, applied: boolean): PackVersionView {
  return { name: record.name, displayName: record.displayName, version: record.version, versionTag: record.versionTag, policies: record.policies, applied };
}

/** Pulumi's `GetPolicyPackConfigSchemaResponse`: each policy's schema, for the policies that have one. */
export function schemaView(record: PolicyPackVersionRecord): { configSchema: Record<string, unknown> } {
  const configSchema: Record<string, unknown> = {};
  for (const policy of record.policies) {
    if (policy.configSchema && typeof policy.name === 'string') configSchema[policy.name] = policy.configSchema;
  }
  return { configSchema };
}

export function packMetadata(pack: EnabledPolicyPack): PackMetadataView {
  return { name: pack.name, displayName: pack.displayName, version: pack.version, versionTag: pack.versionTag, ...(pack.config ? { config: pack.config } : {}) };
}

export function groupSummary(group: PolicyGroupRecord, members: readonly StackRecord[]): PolicyGroupSummaryView {
  return {
    name: group.name,
    isOrgDefault: group.isOrgDefault,
    numStacks: members.length,
    entityType: 'stacks',
    mode: group.mode,
    numEnabledPolicyPacks: group.packs.length,
  };
}

export function groupView(group: PolicyGroupRecord, members: readonly StackRecord[]): PolicyGroupView {
  return {
    name: group.name,
    isOrgDefault: group.isOrgDefault,
    entityType: 'stacks',
    mode: group.mode,
    stacks: members.map((s) => ({ name: s.stack, routingProject: s.project })),
    appliedPolicyPacks: group.packs.map(packMetadata),
    accounts: [],
  };
}
