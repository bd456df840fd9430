/**
 * ESC environments over the service's ESC routes, called as the `esc` CLI's client calls them
 * (`cmd/esc/cli/client/client.go`): definitions travel as YAML with their etag, a refusal with errors is a 400 with
 * ESC's diagnostics, and opening is a session (`POST …/open`, then `GET …/open/{id}`).
 */
import { ApiError } from '../api-client/api-error.js';
import type { ApiClient } from '../api-client/api-client.js';
import type { EnvironmentRef } from '../../shared/core/names.js';
import type { Diagnostic, EscEnvironment } from '../../shared/esc/index.js';
import type { CheckedEnvironment, EnvironmentListing, EnvironmentRevision, EnvironmentRevisionTag, EnvironmentsBackend } from './environments-backend.js';

const ESC = '/api/esc/environments';

const envPath = (ref: EnvironmentRef) => `${ESC}/${ref.org}/${ref.project}/${ref.name}`;
const versionPath = (ref: EnvironmentRef, version: string | undefined) =>
  version === undefined || version === '' ? envPath(ref) : `${envPath(ref)}/versions/${encodeURIComponent(version)}`;

/** Go's `time.Duration` text for a lifetime, as ESC's client sends `?duration=`. */
function goDuration(ms: number): string {
  return `${Math.round(ms / 1000)}s`;
}

/** A 400 with diagnostics becomes them, as ESC's client returns them. */
async function diagnosticsOf<T>(work: () => Promise<T>): Promise<T | Diagnostic[]> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError && error.status === 400 && error.diagnostics) return error.diagnostics as Diagnostic[];
    throw error;
  }
}

/** ESC's check routes: the checked environment with its warnings, or a 400 with its errors. */
async function checked(client: ApiClient, path: string, showSecrets: boolean, yaml?: string): Promise<CheckedEnvironment> {
  const answer = await diagnosticsOf(() =>
    client.request<EscEnvironment & { diagnostics?: Diagnostic[] }>({
      method: 'POST',
      path,
      query: { showSecrets: showSecrets || undefined },
      ...(yaml !== undefined ? { text: { contentType: 'application/x-yaml', data: yaml } } : {}),
      operation: 'check environment',
    }),
  );
  if (Array.isArray(answer)) return { diagnostics: answer };
  const { diagnostics, ...environment } = answer;
  return { environment: environment as EscEnvironment, diagnostics: diagnostics ?? [] };
}

interface WireListing {
  environments?: { organization: string; project: string; name: string }[];
  nextToken?: string;
}

export function httpEnvironmentsBackend(client: ApiClient): EnvironmentsBackend {
  const openSession = async (ref: EnvironmentRef, version: string | undefined, lifetimeMs?: number) => {
    const query = lifetimeMs === undefined ? undefined : { duration: goDuration(lifetimeMs) };
    const { id } = await client.request<{ id: string }>({ method: 'POST', path: `${versionPath(ref, version)}/open`, query, operation: 'open environment' });
    return client.request<EscEnvironment>({ method: 'GET', path: `${envPath(ref)}/open/${id}`, operation: 'read opened environment' });
  };
  return {
    open: (ref, version) => openSession(ref, version),
    async openChecked(ref, version, lifetimeMs) {
      const opened = await diagnosticsOf(() => openSession(ref, version, lifetimeMs));
      return Array.isArray(opened) ? { diagnostics: opened } : { environment: opened, diagnostics: [] };
    },
    async list(org) {
      const all: EnvironmentListing[] = [];
      let continuationToken: string | undefined;
      do {
        const page = await client.request<WireListing>({ method: 'GET', path: org ? `${ESC}/${org}` : ESC, query: { continuationToken }, operation: 'list environments' });
        all.push(...(page.environments ?? []).map((e) => ({ org: e.organization, project: e.project, name: e.name })));
        continuationToken = page.nextToken || undefined;
      } while (continuationToken !== undefined);
      return all;
    },
    async create(ref) {
      await client.request({ method: 'POST', path: `${ESC}/${ref.org}`, body: { project: ref.project, name: ref.name }, operation: 'create environment' });
    },
    async getDefinition(ref, version, decrypt) {
      const path = decrypt ? `${versionPath(ref, version)}/decrypt` : versionPath(ref, version);
      const { text, headers } = await client.requestText({ method: 'GET', path, operation: 'read environment definition' });
      return { yaml: text, etag: headers.get('etag') ?? '', revision: Number(headers.get('pulumi-esc-revision') ?? 0) };
    },
    async update(ref, yaml, etag) {
      const saved = await diagnosticsOf(() =>
        client.request<{ diagnostics?: Diagnostic[] } | undefined>({
          method: 'PATCH',
          path: envPath(ref),
          text: { contentType: 'application/x-yaml', data: yaml },
          ...(etag ? { headers: { etag } } : {}),
          operation: 'update environment',
        }),
      );
      return Array.isArray(saved) ? saved : (saved?.diagnostics ?? []);
    },
    async delete(ref) {
      await client.request({ method: 'DELETE', path: envPath(ref), operation: 'delete environment' });
    },
    check: (ref, version, showSecrets) => checked(client, `${versionPath(ref, version)}/check`, showSecrets),
    checkYaml: (org, yaml, showSecrets) => checked(client, `${ESC}/${org}/yaml/check`, showSecrets, yaml),
    async clone(ref, request) {
      await client.request({ method: 'POST', path: `${envPath(ref)}/clone`, body: request, operation: 'clone environment' });
    },
    async listRevisions(ref, before, count) {
      return client.request<EnvironmentRevision[]>({ method: 'GET', path: `${envPath(ref)}/versions`, query: { before, count }, operation: 'list revisions' });
    },
    async listRevisionTags(ref) {
      const page = await client.request<{ tags: EnvironmentRevisionTag[] }>({ method: 'GET', path: `${envPath(ref)}/versions/tags`, operation: 'list revision tags' });
      return page.tags;
    },
    async getRevisionTag(ref, name) {
      return client.request<EnvironmentRevisionTag>({ method: 'GET', path: `${envPath(ref)}/versions/tags/${encodeURIComponent(name)}`, operation: 'read revision tag' });
    },
    async createRevisionTag(ref, name, revision) {
      await client.request({ method: 'POST', path: `${envPath(ref)}/versions/tags`, body: { name, revision }, operation: 'create revision tag' });
    },
    async updateRevisionTag(ref, name, revision) {
      await client.request({ method: 'PATCH', path: `${envPath(ref)}/versions/tags/${encodeURIComponent(name)}`, body: { revision }, operation: 'update revision tag' });
    },
    async deleteRevisionTag(ref, name) {
      await client.request({ method: 'DELETE', path: `${envPath(ref)}/versions/tags/${encodeURIComponent(name)}`, operation: 'delete revision tag' });
    },
  };
}
