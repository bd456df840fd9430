/**
 * Policy packs and policy groups on a service, called as the `pulumi` CLI's client calls them (pulumi/pulumi
 * `pkg/backend/httpstate/client/client.go`): the same routes, bodies and the three steps of a publish.
 */
import { UserError } from '../output/errors.js';
import {
  type CreatePolicyPackRequest,
  type PolicyGroupSummary,
  type PolicyPackConfigSchemaResponse,
  type PolicyPackWithVersions,
} from '../policy/policy-types.js';

/** What `stackyard policy …` and the required-pack installer ask of a backend. */
export interface PolicyBackend {
  listPacks(org: string): Promise<PolicyPackWithVersions[]>;
  listGroups(org: string): Promise<PolicyGroupSummary[]>;
  /** Creates the version, uploads the tarball where the service says, then marks it complete; returns the version tag. */
  publish(org: string, request: CreatePolicyPackRequest, tarball: Buffer): Promise<string>;
  /** `versionTag` empty: the latest version. `group` empty: the default group. */
  enable(org: string, group: string, name: string, versionTag: string, config: Record<string, unknown> | undefined): Promise<void>;
  /** `versionTag` empty: whichever version is enabled. */
  disable(org: string, group: string, name: string, versionTag: string): Promise<void>;
  /** `versionTag` undefined: every version of the pack. */
  remove(org: string, name: string, versionTag: string | undefined): Promise<void>;
  schema(org: string, name: string, versionTag: string): Promise<PolicyPackConfigSchemaResponse>;
  /** A required pack's tarball, from the `packLocation` the service gave. */
  download(packLocation: string): Promise<Buffer>;
}

/** Pulumi's `validatePolicyPackVersion`: an empty tag (old `@pulumi/policy`) or 1–100 of `[a-zA-Z0-9-_.]`. */
export function checkPolicyPackVersion(version: string): void {
  if (version !== '' && !/^[a-zA-Z0-9\-_.]{1,100}$/.test(version)) {
    throw new UserError(
      `invalid version "${version}" - version may only contain alphanumeric, hyphens, or underscores. It must also be between 1 and 100 characters long.`,
    );
  }
}
