/** The deployments routes of a service, over HTTP (loaded on first use: see lazy-sub-backend.ts). */
import type { StackRef } from '../../shared/core/names.js';
import type { DeploymentRunView } from '../../shared/core/deployments/views.js';
import type { ApiClient } from '../api-client/api-client.js';
import type { DeploymentsBackend } from './deployments-backend.js';

/** The header pulumi's client names who started a deployment with, and the value its CLI sends. */
const INITIATOR_HEADER = 'X-Pulumi-Deployment-Initiator';
const CLI_INITIATOR = 'automation-api';

const path = (ref: StackRef, rest = '') =>
  `/api/stacks/${encodeURIComponent(ref.org)}/${encodeURIComponent(ref.project)}/${encodeURIComponent(ref.stack)}/deployments${rest}`;
const seg = encodeURIComponent;

/** The deployment routes of the service. */
export function httpDeploymentsBackend(client: ApiClient): DeploymentsBackend {
  return {
    async getSettings(ref) {
      return (await client.request<Record<string, unknown>>({ method: 'GET', path: path(ref, '/settings'), operation: 'get deployment settings' })) ?? {};
    },
    patchSettings(ref, patch) {
      return client.request({ method: 'POST', path: path(ref, '/settings'), body: patch, operation: 'update deployment settings' });
    },
    async deleteSettings(ref) {
      await client.request({ method: 'DELETE', path: path(ref, '/settings'), operation: 'delete deployment settings' });
    },
    run(ref, request) {
      // As pulumi's `deployment run` and `up --remote` send it (pkg/cmd/pulumi/deployment/remote.go: "automation-api").
      return client.request({ method: 'POST', path: path(ref), body: request, headers: { [INITIATOR_HEADER]: CLI_INITIATOR }, operation: 'create deployment' });
    },
    async list(ref) {
      const answer = await client.request<{ deployments?: DeploymentRunView[] }>({ method: 'GET', path: path(ref), operation: 'list deployments' });
      return answer?.deployments ?? [];
    },
    get(ref, id) {
      return client.request({ method: 'GET', path: path(ref, `/${seg(id)}`), operation: 'get deployment' });
    },
    cancel(ref, id) {
      return client.request({ method: 'POST', path: path(ref, `/${seg(id)}/cancel`), operation: 'cancel deployment' });
    },
    logs(ref, id, page) {
      return client.request({ method: 'GET', path: path(ref, `/${seg(id)}/logs`), query: { offset: page.offset, count: page.count }, operation: 'get deployment logs' });
    },
    async uploadSource(ref, { archive, sha256 }) {
      const upload = await client.request<{ id: string; uploadURI: string; requiredHeaders: Record<string, string> }>({
        method: 'POST',
        path: path(ref, '/sources'),
        body: { size: archive.length, sha256 },
        operation: 'declare program archive',
      });
      // Straight to S3 on AWS (a presigned PUT: the token stays home), through the API on serve.
      await client.transfer({ method: 'PUT', url: upload.uploadURI, body: archive, headers: upload.requiredHeaders, operation: 'upload program archive' });
      return { id: upload.id };
    },
  };
}
