/**
 * The service's policy bodies as the `pulumi` CLI reads and sends them (pulumi/pulumi `sdk/go/common/apitype/policy.go`):
 * packs, their versions, policy groups and the packs an update is required to run.
 */

/** Pulumi's `DefaultPolicyGroup`: the group every new stack joins, used when `--policy-group` is not given. */
export const DEFAULT_POLICY_GROUP = 'default-policy-group';

/** A policy's config schema as the service stores it (`PolicyConfigSchema`). */
export interface WirePolicyConfigSchema {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
}

/** One policy of a published pack (`apitype.Policy`). */
export interface WirePolicy {
  name: string;
  displayName: string;
  description: string;
  enforcementLevel: string;
  message: string;
  configSchema?: WirePolicyConfigSchema;
  severity?: string;
}

/** `CreatePolicyPackRequest`: step 1 of a publish. */
export interface CreatePolicyPackRequest {
  name: string;
  displayName: string;
  versionTag?: string;
  policies: WirePolicy[];
  description?: string;
  runtime?: string;
  metadata?: Record<string, string>;
}

/** `CreatePolicyPackResponse`: where to PUT the tarball, with the headers that PUT must carry. */
export interface CreatePolicyPackResponse {
  version: number;
  uploadURI: string;
  requiredHeaders?: Record<string, string>;
}

/** `PolicyPackWithVersions`, one row of `policy ls`. */
export interface PolicyPackWithVersions {
  name: string;
  displayName: string;
  versions: number[];
  versionTags: string[];
}

/** `PolicyGroupSummary`, one row of `policy group ls`. */
export interface PolicyGroupSummary {
  name: string;
  isOrgDefault: boolean;
  numStacks: number;
  numEnabledPolicyPacks: number;
  entityType?: string;
  mode?: string;
}

/** `RequiredPolicy`: a pack version an update must run, with the group's config and where to download it. */
export interface RequiredPolicy {
  name: string;
  version: number;
  versionTag: string;
  displayName: string;
  packLocation?: string;
  config?: Record<string, unknown>;
  environments?: string[];
}

/** `GetPolicyPackConfigSchemaResponse`: each policy's config schema. */
export interface PolicyPackConfigSchemaResponse {
  configSchema?: Record<string, WirePolicyConfigSchema>;
}
