/**
 * Policy packs and policy groups on a service, called as the `pulumi` CLI's client calls them (pulumi/pulumi
 * `pkg/backend/httpstate/client/client.go`): the same routes, bodies and the three steps of a publish.
 */
import type { ApiClient } from '../api-client/api-client.js';
import { UserError } from '../output/errors.js';
import {
  DEFAULT_POLICY_GROUP,
  type CreatePolicyPackRequest,
  type CreatePolicyPackResponse,
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

const seg = encodeURIComponent;

/** Pulumi's `validatePolicyPackVersion`: an empty tag (old `@pulumi/policy`) or 1–100 of `[a-zA-Z0-9-_.]`. */
export function checkPolicyPackVersion(version: string): void {
  if (version !== '' && !/^[a-zA-Z0-9\-_.]{1,100}$/.test(version)) {
    throw new UserError(
      `invalid version "${version}" - version may only contain alphanumeric, hyphens, or underscores. It must also be between 1 and 100 characters long.`,
    );
  }
}

/** The service's policy routes. */
export function httpPolicyBackend(client: ApiClient): PolicyBackend {
  const packs = (org: string) => `/api/orgs/${seg(org)}/policypacks`;
  const group = (org: string, name: string) => `/api/orgs/${seg(org)}/policygroups/${seg(name || DEFAULT_POLICY_GROUP)}`;
  return {
    async listPacks(org) {
      const answer = await client.request<{ policyPacks?: PolicyPackWithVersions[] }>({ method: 'GET', path: packs(org), operation: 'list policy packs' });
      return answer?.policyPacks ?? [];
    },
    async listGroups(org) {
      const answer = await client.request<{ policyGroups?: PolicyGroupSummary[] }>({ method: 'GET', path: `/api/orgs/${seg(org)}/policygroups`, operation: 'list policy groups' });
      return answer?.policyGroups ?? [];
    },
    async publish(org, request, tarball) {
      checkPolicyPackVersion(request.versionTag ?? '');
      const created = await client.request<CreatePolicyPackResponse>({ method: 'POST', path: packs(org), body: request, operation: 'publish policy pack' });
      await client.transfer({ method: 'PUT', url: created.uploadURI, body: tarball, headers: created.requiredHeaders, operation: 'upload policy pack' });
      const version = request.versionTag || String(created.version);
      await client.request({ method: 'POST', path: `${packs(org)}/${seg(request.name)}/versions/${seg(version)}/complete`, operation: 'complete policy pack publish' });
      return version;
    },
    async enable(org, groupName, name, versionTag, config) {
      const addPolicyPack = { name, ...(versionTag ? { versionTag } : {}), ...(config ? { config } : {}) };
      await client.request({ method: 'PATCH', path: group(org, groupName), body: { addPolicyPack }, operation: 'enable policy pack' });
    },
    async disable(org, groupName, name, versionTag) {
      const removePolicyPack = { name, ...(versionTag ? { versionTag } : {}) };
      await client.request({ method: 'PATCH', path: group(org, groupName), body: { removePolicyPack }, operation: 'disable policy pack' });
    },
    async remove(org, name, versionTag) {
      const path = versionTag === undefined ? `${packs(org)}/${seg(name)}` : `${packs(org)}/${seg(name)}/versions/${seg(versionTag)}`;
      await client.request({ method: 'DELETE', path, operation: 'remove policy pack' });
    },
    async schema(org, name, versionTag) {
      const answer = await client.request<PolicyPackConfigSchemaResponse>({ method: 'GET', path: `${packs(org)}/${seg(name)}/versions/${seg(versionTag)}/schema`, operation: 'read policy pack config schema' });
      return answer ?? {};
    },
    download(packLocation) {
      return client.transfer({ method: 'GET', url: packLocation, operation: 'download policy pack' });
    },
  };
}

/** `login --local` keeps no packs or groups (Pulumi's DIY backend neither): every call says so. */
export function localPolicyBackend(): PolicyBackend {
  const refuse = async (): Promise<never> => {
    throw new UserError(
      'the local backend does not support resource policy',
      'Publish and enable policy packs on a stackyard service (`stackyard login <url>`); run a pack locally with `--policy-pack <dir>`.',
    );
  };
  return { listPacks: refuse, listGroups: refuse, publish: refuse, enable: refuse, disable: refuse, remove: refuse, schema: refuse, download: refuse };
}
