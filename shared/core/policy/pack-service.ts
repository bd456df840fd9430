import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ConflictError, InvalidInputError, NotFoundError, UnauthorizedError } from '../errors.js';
import type { PolicyPackVersionRecord } from '../../ports/policy-store.js';
import { audited } from '../audit/audit.js';
import { requireOrgAction } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { checkCreateRequest, checkPackName, checkVersionTag, requestDetails, type CreatePolicyPackRequest } from './pack-request.js';
import { groupsEnabling } from './group-records.js';
import { checkPackTarball } from './tarball.js';
import { packLocation, packView, packsList, schemaView, type PackVersionView, type PolicyPackList } from './views.js';

/** The header an upload through the API carries: the one-time ticket `createPack` handed out. */
export const UPLOAD_TICKET_HEADER = 'X-Stackyard-Upload-Ticket';

/** Pulumi's `CreatePolicyPackResponse`. */
export interface CreatedPack {
  version: number;
  uploadURI: string;
  requiredHeaders: Record<string, string>;
}

const NUMBER_RETRIES = 8;
/**
 * How long a started publish owns its version: a second publish of the same version meanwhile is refused (409), so
 * two publishers never mix one's metadata with the other's tarball; after it, an unfinished publish counts as abandoned
 * and is replaced. An upload of at most 4 MB takes seconds.
 */
export const PENDING_PUBLISH_MS = 10 * 60_000;
/** How long a presigned upload URI lives: well inside PENDING_PUBLISH_MS, so no late upload lands on a replacing publish. */
const DIRECT_UPLOAD_SECONDS = 300;

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

function versionNotFound(name: string, tag: string): NotFoundError {
  return new NotFoundError(`Policy pack '${name.slice(0, 100)}' has no version '${tag.slice(0, 100)}': list the organization's packs with 'stackyard policy ls'.`);
}

/** The pack verbs of `PolicyService` (policy-service.ts): publish in three calls, read, delete. */
export function createPackVerbs(deps: ServiceDeps) {
  const store = () => deps.storage.policies;
  const packages = () => deps.storage.policyPackages;
  const base = () => deps.options.serviceUrl ?? '';

  async function publishedVersion(org: string, name: string, tag: string): Promise<PolicyPackVersionRecord> {
    const record = await store().getVersion(org, checkPackName(name), checkVersionTag(tag));
    if (!record || record.status !== 'published') throw versionNotFound(name, tag);
    return record;
  }

  /**
   * A new pending version with the next number, or a replacement of an abandoned one (pending for longer than
   * PENDING_PUBLISH_MS). Each is one conditional write, so of concurrent publishes of one version exactly one gets it.
   */
  async function createPending(principal: Principal, org: string, request: CreatePolicyPackRequest, ticketHash: string) {
    for (let attempt = 0; ; attempt++) {
      const versions = (await store().listVersions(org)).filter((v) => v.name === request.name);
      const tag = request.versionTag || String((versions.at(-1)?.version ?? 0) + 1);
      const existing = versions.find((v) => v.versionTag === tag);
      if (existing?.status === 'published') {
        throw new ConflictError(`Version ${tag} of policy pack '${request.name}' is already published: versions are immutable, so raise the version in the pack's package.json.`);
      }
      if (existing && existing.createdAt + PENDING_PUBLISH_MS > deps.now()) {
        const free = new Date(existing.createdAt + PENDING_PUBLISH_MS).toISOString();
        throw new ConflictError(
          `Version ${tag} of policy pack '${request.name}' is being published by ${existing.createdBy} since ${new Date(existing.createdAt).toISOString()}: ` +
            `wait for that publish to finish (then raise the version), or publish again after ${free} if it was abandoned.`,
        );
      }
      const record: PolicyPackVersionRecord = {
        org,
        name: request.name,
        versionTag: tag,
        version: existing?.version ?? (versions.at(-1)?.version ?? 0) + 1,
        displayName: request.displayName || request.name,
        policies: request.policies,
        details: requestDetails(request),
        status: 'pending',
        uploadTicketHash: ticketHash,
        createdAt: deps.now(),
        createdBy: principal.login,
        revision: (existing?.revision ?? 0) + 1,
      };
      try {
        if (existing) await store().updateVersion(record, existing.revision);
        else await store().createVersion(record);
        return record;
      } catch (error) {
        if (!(error instanceof ConflictError) || attempt >= NUMBER_RETRIES) throw error;
      }
    }
  }

  return {
    async createPack(principal: Principal, org: string, request: CreatePolicyPackRequest): Promise<CreatedPack> {
      requireOrgAction(principal, org, 'manage-policies');
      checkCreateRequest(request);
      const ticket = randomBytes(32).toString('base64url');
      const record = await createPending(principal, org, request, sha256Hex(ticket));
      // Straight to the bucket where the storage offers it (AWS), expiring before the publish could count as abandoned.
      const direct = await packages().uploadLocation(org, record.name, record.versionTag, DIRECT_UPLOAD_SECONDS);
      if (direct) return { version: record.version, uploadURI: direct.url, requiredHeaders: direct.headers };
      const path = `/api/orgs/${org}/policypacks/${record.name}/versions/${encodeURIComponent(record.versionTag)}/upload`;
      // A binary content type keeps API Gateway (and serve, which acts as it does) from reading the tarball as text.
      const requiredHeaders = { [UPLOAD_TICKET_HEADER]: ticket, 'Content-Type': 'application/gzip' };
      return { version: record.version, uploadURI: `${base()}${path}`, requiredHeaders };
    },

    /** The upload (through the API, on every storage): the ticket of the pending version is the only credential. */
    async uploadPackage(org: string, name: string, tag: string, ticket: string | undefined, tarball: Uint8Array): Promise<void> {
      const record = await store().getVersion(org, checkPackName(name), checkVersionTag(tag));
      if (!record || record.status !== 'pending' || !record.uploadTicketHash || !ticket || !sameHash(record.uploadTicketHash, sha256Hex(ticket))) {
        throw new UnauthorizedError(`This upload is not expected: start a publish with POST /api/orgs/${org}/policypacks and upload to the URI it returns, with its headers.`);
      }
      try {
        checkPackTarball(tarball);
      } catch (error) {
        // Nothing of a refused publish stays, its pending version neither: the fixed pack can be published at once.
        await store().deleteVersion(org, record.name, record.versionTag);
        throw error;
      }
      await packages().putPackage(org, record.name, record.versionTag, tarball);
    },

    async completePack(principal: Principal, org: string, name: string, tag: string): Promise<void> {
      requireOrgAction(principal, org, 'manage-policies');
      const record = await store().getVersion(org, checkPackName(name), checkVersionTag(tag));
      if (!record) throw versionNotFound(name, tag);
      if (record.status === 'published') return;
      const tarball = await packages().getPackage(org, name, tag);
      if (!tarball) throw new InvalidInputError(`Version ${tag} of policy pack '${name}' has no uploaded tarball yet: PUT it to the upload URI first.`);
      let checked;
      try {
        checked = checkPackTarball(tarball);
      } catch (error) {
        // Nothing of a refused publish stays: the same version can be published again once fixed.
        await packages().deletePackage(org, name, tag);
        await store().deleteVersion(org, name, tag);
        throw error;
      }
      const published: PolicyPackVersionRecord = { ...record, status: 'published', ...checked, publishedAt: deps.now(), revision: record.revision + 1 };
      delete published.uploadTicketHash;
      const description = `published version ${tag} of policy pack ${name}`;
      await audited(deps, principal, { org, event: 'policy.pack-published', target: `${name}@${tag}`, description }, () =>
        store().updateVersion(published, record.revision),
      );
    },

    async listPacks(principal: Principal, org: string): Promise<PolicyPackList> {
      requireOrgAction(principal, org, 'read-policies');
      return packsList((await store().listVersions(org)).filter((v) => v.status === 'published'));
    },

    async getPackVersion(principal: Principal, org: string, name: string, tag: string): Promise<PackVersionView> {
      requireOrgAction(principal, org, 'read-policies');
      const record = await publishedVersion(org, name, tag);
      return packView(record, (await groupsEnabling(deps, org, record)).length > 0);
    },

    async getPackSchema(principal: Principal, org: string, name: string, tag: string) {
      requireOrgAction(principal, org, 'read-policies');
      return schemaView(await publishedVersion(org, name, tag));
    },

    /** The tarball of a published version and where it is fetched from (a route of this API). */
    async downloadPackage(principal: Principal, org: string, name: string, tag: string): Promise<Uint8Array> {
      requireOrgAction(principal, org, 'read-policies');
      const record = await publishedVersion(org, name, tag);
      const tarball = await packages().getPackage(org, record.name, record.versionTag);
      if (!tarball) throw versionNotFound(name, tag);
      return tarball;
    },

    packLocation: (org: string, name: string, tag: string) => packLocation(base(), org, name, tag),

    async deletePackVersion(principal: Principal, org: string, name: string, tag: string): Promise<void> {
      requireOrgAction(principal, org, 'manage-policies');
      const record = await store().getVersion(org, checkPackName(name), checkVersionTag(tag));
      if (!record) throw versionNotFound(name, tag);
      await refuseIfEnabled(deps, org, [record]);
      const description = `deleted version ${tag} of policy pack ${name}`;
      await audited(deps, principal, { org, event: 'policy.pack-deleted', target: `${name}@${tag}`, description }, async () => {
        await store().deleteVersion(org, name, tag);
        await packages().deletePackage(org, name, tag);
      });
    },

    async deletePack(principal: Principal, org: string, name: string): Promise<void> {
      requireOrgAction(principal, org, 'manage-policies');
      const versions = (await store().listVersions(org)).filter((v) => v.name === checkPackName(name));
      if (versions.length === 0) throw new NotFoundError(`Policy pack '${name.slice(0, 100)}' not found: list the organization's packs with 'stackyard policy ls'.`);
      await refuseIfEnabled(deps, org, versions);
      await audited(deps, principal, { org, event: 'policy.pack-deleted', target: name, description: `deleted policy pack ${name} (${versions.length} versions)` }, async () => {
        for (const version of versions) {
          await store().deleteVersion(org, name, version.versionTag);
          await packages().deletePackage(org, name, version.versionTag);
        }
      });
    },
  };
}

/** A version a group enables stays: deleting it would leave the group's stacks requiring a pack nobody can fetch. */
async function refuseIfEnabled(deps: ServiceDeps, org: string, versions: readonly PolicyPackVersionRecord[]): Promise<void> {
  for (const version of versions) {
    const groups = await groupsEnabling(deps, org, version);
    if (groups.length > 0) {
      throw new ConflictError(
        `Version ${version.versionTag} of policy pack '${version.name}' is enabled in policy group ${groups.map((g) => `'${g}'`).join(', ')}: ` +
          `disable it there first ('stackyard policy disable').`,
      );
    }
  }
}
