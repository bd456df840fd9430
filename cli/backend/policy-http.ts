/** The policy routes of a service, over HTTP (loaded on first use: see lazy-sub-backend.ts). */
import type { ApiClient } from '../api-client/api-client.js';
import {
  DEFAULT_POLICY_GROUP,
  type CreatePolicyPackResponse,
  type PolicyGroupSummary,
  type PolicyPackConfigSchemaResponse,
  type PolicyPackWithVersions,
} from '../policy/policy-types.js';
import { checkPolicyPackVersion, type PolicyBackend } from './policy-backend.js';

const seg = encodeURIComponent;

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
