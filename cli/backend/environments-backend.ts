import type { EnvironmentRef } from '../../shared/core/names.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { CloneRequest, DefinitionView, RevisionTagView, RevisionView } from '../../shared/core/environments/types.js';
import { DiagnosticsError } from '../../shared/core/errors.js';
import type { Diagnostic, EscEnvironment } from '../../shared/esc/index.js';
import type { LocalServices } from './local-services.js';

/** One environment as listed. */
export interface EnvironmentListing {
  org: string;
  project: string;
  name: string;
}

/** A revision as ESC's API shows it (EnvironmentRevision; times as RFC 3339). */
export interface EnvironmentRevision {
  number: number;
  created: string;
  creatorLogin: string;
  creatorName: string;
  tags: string[];
}

/** A revision tag as ESC's API shows it (EnvironmentRevisionTag). */
export interface EnvironmentRevisionTag {
  name: string;
  revision: number;
  created: string;
  modified: string;
  editorLogin: string;
  editorName: string;
}

/** A checked or opened environment, or the diagnostics that kept it from being one (errors: no environment). */
export interface CheckedEnvironment {
  environment?: EscEnvironment;
  diagnostics: Diagnostic[];
}

/**
 * ESC environments on a backend: the same core use cases on the service (over ESC's REST routes, as the `esc` CLI
 * calls them) and in process (`login --local`). A definition or environment with errors comes back as diagnostics,
 * as ESC's client returns them, not as an error.
 */
export interface EnvironmentsBackend {
  /** Opens a version of an environment (`undefined`: the latest) and returns its values, secrets revealed and marked. */
  open(ref: EnvironmentRef, version: string | undefined): Promise<EscEnvironment>;
  /** Opens a version for `lifetimeMs` (the service's default when absent); an environment with errors gives its diagnostics. */
  openChecked(ref: EnvironmentRef, version: string | undefined, lifetimeMs?: number): Promise<CheckedEnvironment>;
  /** Every environment the caller may read, in `org` or in all of its organizations. */
  list(org: string | undefined): Promise<EnvironmentListing[]>;
  create(ref: EnvironmentRef): Promise<void>;
  /** The definition (secrets as ciphertext, or in plaintext with `decrypt`) with its revision and etag. */
  getDefinition(ref: EnvironmentRef, version: string | undefined, decrypt: boolean): Promise<DefinitionView>;
  /** Saves a new revision (only if none was saved since `etag` was read, when given); errors: not saved. */
  update(ref: EnvironmentRef, yaml: string, etag?: string): Promise<Diagnostic[]>;
  delete(ref: EnvironmentRef): Promise<void>;
  /** Checks a stored version (`undefined`: the latest), secrets in plaintext with `showSecrets`. */
  check(ref: EnvironmentRef, version: string | undefined, showSecrets: boolean): Promise<CheckedEnvironment>;
  /** Checks a definition that is not stored, its imports in `org`. */
  checkYaml(org: string, yaml: string, showSecrets: boolean): Promise<CheckedEnvironment>;
  clone(ref: EnvironmentRef, request: CloneRequest): Promise<void>;
  /** Newest first, revisions numbered below `before` (all when absent). */
  listRevisions(ref: EnvironmentRef, before?: number, count?: number): Promise<EnvironmentRevision[]>;
  listRevisionTags(ref: EnvironmentRef): Promise<EnvironmentRevisionTag[]>;
  getRevisionTag(ref: EnvironmentRef, name: string): Promise<EnvironmentRevisionTag>;
  createRevisionTag(ref: EnvironmentRef, name: string, revision: number): Promise<void>;
  updateRevisionTag(ref: EnvironmentRef, name: string, revision: number): Promise<void>;
  deleteRevisionTag(ref: EnvironmentRef, name: string): Promise<void>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A core revision in ESC's API shape. */
export function revisionOf(r: RevisionView): EnvironmentRevision {
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

/** The local backend's in-process environment service. */
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
