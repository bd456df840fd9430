/** The local backend's environments: the core environment service in process, as the fixed local user. */
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { RevisionTagView, RevisionView } from '../../shared/core/environments/types.js';
import { DiagnosticsError } from '../../shared/core/errors.js';
import type { Diagnostic, EscEnvironment } from '../../shared/esc/index.js';
import type { EnvironmentListing, EnvironmentRevision, EnvironmentRevisionTag, EnvironmentsBackend } from './environments-backend.js';
import type { LocalServices } from './local-services.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** A core revision in ESC's API shape. */
function revisionOf(r: RevisionView): EnvironmentRevision {
  return { number: r.number, created: iso(r.createdAt), creatorLogin: r.creatorLogin, creatorName: r.creatorLogin, tags: r.tags };
}

function tagOf(t: RevisionTagView): EnvironmentRevisionTag {
  return { name: t.name, revision: t.revision, created: iso(t.createdAt), modified: iso(t.modifiedAt), editorLogin: t.editorLogin, editorName: t.editorLogin };
}

/** A refusal with diagnostics becomes them, as ESC's client answers a 400 with diagnostics. */
async function diagnosticsOf<T>(work: () => Promise<T>): Promise<T | Diagnostic[]> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DiagnosticsError) return error.diagnostics as Diagnostic[];
    throw error;
  }
}

export function localEnvironmentsBackend(services: Pick<LocalServices, 'environments'>, principal: Principal): EnvironmentsBackend {
  const service = () => services.environments();
  const backend: EnvironmentsBackend = {
    async open(ref, version) {
      const { id } = await (await service()).open(principal, ref, version);
      return (await (await service()).readOpen(principal, ref, id)) as EscEnvironment;
    },
    async openChecked(ref, version, lifetimeMs) {
      const opened = await diagnosticsOf(async () => {
        const { id } = await (await service()).open(principal, ref, version, lifetimeMs);
        return (await (await service()).readOpen(principal, ref, id)) as EscEnvironment;
      });
      return Array.isArray(opened) ? { diagnostics: opened } : { environment: opened, diagnostics: [] };
    },
    async list(org) {
      const all: EnvironmentListing[] = [];
      let token: string | undefined;
      do {
        const page = await (await service()).list(principal, org, token);
        all.push(...page.environments.map((e) => ({ org: e.org, project: e.project, name: e.name })));
        token = page.nextToken;
      } while (token !== undefined);
      return all;
    },
    async create(ref) {
      await (await service()).create(principal, ref);
    },
    async getDefinition(ref, version, decrypt) {
      return (await service()).getDefinition(principal, ref, version, decrypt);
    },
    async update(ref, yaml, etag) {
      const saved = await diagnosticsOf(async () => (await service()).update(principal, ref, yaml, etag));
      return Array.isArray(saved) ? saved : saved.diagnostics;
    },
    async delete(ref) {
      await (await service()).delete(principal, ref);
    },
    async check(ref, version, showSecrets) {
      return (await service()).check(principal, ref, version, showSecrets);
    },
    async checkYaml(org, yaml, showSecrets) {
      return (await service()).checkYaml(principal, org, yaml, showSecrets);
    },
    async clone(ref, request) {
      await (await service()).clone(principal, ref, request);
    },
    async listRevisions(ref, before, count) {
      return (await (await service()).listRevisions(principal, ref, { before, count })).map(revisionOf);
    },
    async listRevisionTags(ref) {
      return (await (await service()).listRevisionTags(principal, ref)).map(tagOf);
    },
    async getRevisionTag(ref, name) {
      return tagOf(await (await service()).getRevisionTag(principal, ref, name));
    },
    async createRevisionTag(ref, name, revision) {
      await (await service()).createRevisionTag(principal, ref, name, revision);
    },
    async updateRevisionTag(ref, name, revision) {
      await (await service()).updateRevisionTag(principal, ref, name, revision);
    },
    async deleteRevisionTag(ref, name) {
      await (await service()).deleteRevisionTag(principal, ref, name);
    },
  };
  return backend;
}
