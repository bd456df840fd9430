import { randomUUID } from 'node:crypto';
import { ANONYMOUS_ENVIRONMENT, checkEnvironment, decryptSecrets, encryptSecrets, hasErrors, type Diagnostic } from '../../esc/index.js';
import { audited } from '../audit/audit.js';
import { ConflictError, DiagnosticsError, InvalidInputError, NotFoundError } from '../errors.js';
import { isMember, isStaleRevision, requireAdmin, requireMember, requireOrgAction } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { isEnvironmentPermission, teamSubject, userSubject } from '../kernel/permissions.js';
import type { Principal } from '../kernel/principal.js';
import { formatEnvironmentRef, validateEnvironmentRef, validateOrgName, type EnvironmentRef } from '../names.js';
import type { EnvironmentRecord } from '../../ports/environment-store.js';
import { environmentCrypt, newEncryptedDataKey, storeDefinition, type EnvironmentCrypt } from './definitions.js';
import { environmentNotFound, loadEnvironment, readableEnvironments } from './environment-access.js';
import { cloneEnvironment } from './clone.js';
import { createEnvironmentConsoleReads } from './console-reads.js';
import { definitionAt, evaluationName, evaluationOptions } from './evaluation.js';
import { createOpenSessions } from './open-sessions.js';
import { createYamlOpenSessions } from './yaml-open.js';
import { discoveryDocument, issuerKeySet, issuerKeyStandings, rotateIssuerKey } from './issuer/index.js';
import { createRevisionUseCases, resolveRevision } from './revisions.js';
import type { EnvironmentService, EnvironmentSummary } from './types.js';

/** A save without an etag replaces whatever is there; each round of a race lands one save, so ten rounds land ten racers. */
const MAX_UNCONDITIONAL_ATTEMPTS = 10;

/** The etag of a revision: opaque to clients, it names the environment (a recreated one never matches) and revision. */
export function environmentEtag(environment: Pick<EnvironmentRecord, 'id'>, revision: number): string {
  return `"${environment.id.slice(0, 8)}.${revision}"`;
}

/** The revision an etag (`ETag` or `If-Match`, quoted or weak) names, if it is one of this environment's. */
function etagRevision(environment: EnvironmentRecord, etag: string): number | undefined {
  const match = /^(?:W\/)?"?([0-9a-f]{8})\.([0-9]{1,12})"?$/.exec(etag.trim());
  return match && match[1] === environment.id.slice(0, 8) ? Number(match[2]) : undefined;
}

/**
 * Checks a definition as it will be stored, then opens each of its own ciphertexts under this environment's key (one
 * of another environment, or altered, refuses it). Checking reveals no secret: imports' secrets stay sealed.
 */
async function checkForSave(deps: ServiceDeps, principal: Principal, environment: EnvironmentRecord, crypt: EnvironmentCrypt, yaml: string): Promise<Diagnostic[]> {
  const name = formatEnvironmentRef(environment);
  const { diagnostics } = await checkEnvironment(evaluationName(environment), yaml, evaluationOptions(deps, principal, environment.org, 'check', crypt));
  if (hasErrors(diagnostics)) {
    const count = diagnostics.filter((d) => d.severity === 'error').length;
    const first = diagnostics.find((d) => d.severity === 'error')!.summary;
    throw new DiagnosticsError(`The definition of '${name}' has ${count} error${count === 1 ? '' : 's'} and was not saved: ${first}`, diagnostics);
  }
  if (yaml.includes('ciphertext')) {
    try {
      await decryptSecrets(yaml, crypt.decrypt);
    } catch (error) {
      const summary = `a secret's ciphertext does not open for environment '${name}': ${(error as Error).message}`;
      throw new DiagnosticsError(`The definition of '${name}' was not saved: ${summary}.`, [{ severity: 'error', summary, path: 'values' }]);
    }
  }
  return diagnostics;
}

export function createEnvironmentService(deps: ServiceDeps): EnvironmentService {
  const store = deps.storage.environments;
  type Event = 'environment.created' | 'environment.updated' | 'environment.deleted' | 'environment.secrets-revealed';
  const spec = (environment: EnvironmentRef, event: Event, revision: number, description: string) =>
    ({ org: environment.org, event, target: formatEnvironmentRef(environment), revision, description }) as const;

  async function saveRevision(principal: Principal, ref: EnvironmentRef, yaml: string, etag: string | undefined) {
    for (let attempt = 1; ; attempt += 1) {
      const environment = await loadEnvironment(deps, principal, ref, 'write');
      // `If-Match: *` asks only that the environment exists.
      const expected = etag === undefined || etag.trim() === '*' ? environment.revision : etagRevision(environment, etag);
      if (expected !== environment.revision) {
        throw new ConflictError(
          `Environment '${formatEnvironmentRef(environment)}' was changed since you read it (it is at revision ${environment.revision}): read it again, then save.`,
          { revision: environment.revision },
        );
      }
      const crypt = await environmentCrypt(deps, environment);
      const diagnostics = await checkForSave(deps, principal, environment, crypt, yaml);
      // Only a definition with secrets is rewritten: one without is stored byte for byte as sent.
      const sealed = yaml.includes('fn::secret') ? await encryptSecrets(yaml, crypt.encrypt) : yaml;
      const definition = await storeDefinition(deps, environment.id, sealed);
      const description = `saved revision ${expected + 1} of ${formatEnvironmentRef(environment)}`;
      try {
        const saved = await audited(deps, principal, spec(environment, 'environment.updated', expected + 1, description), () =>
          store.addRevision(environment.id, expected, { definition, createdAt: deps.now(), creatorLogin: principal.login }),
        );
        return { revision: saved.revision, diagnostics };
      } catch (error) {
        const conditional = etag !== undefined && etag.trim() !== '*';
        if (conditional || !isStaleRevision(error) || attempt >= MAX_UNCONDITIONAL_ATTEMPTS) throw error;
      }
    }
  }

  async function summaries(principal: Principal, org: string, token: string | undefined) {
    const page = await readableEnvironments(deps, principal, org, token);
    const visible: EnvironmentSummary[] = page.environments.map((environment) => ({
      org,
      project: environment.project,
      name: environment.name,
      createdAt: environment.createdAt,
      modifiedAt: environment.modifiedAt,
    }));
    return { visible, next: page.continuationToken };
  }

  return {
    ...createRevisionUseCases(deps),
    ...createOpenSessions(deps),
    ...createYamlOpenSessions(deps),
    ...createEnvironmentConsoleReads(deps),

    async list(principal, org, continuationToken) {
      const orgs = org === undefined ? [...principal.orgs].sort() : [org];
      if (org !== undefined) requireMember(principal, org);
      const position = continuationToken === undefined ? { org: orgs[0], token: undefined } : decodeListToken(continuationToken);
      const index = orgs.indexOf(position.org ?? '');
      if (index === -1) return { environments: [] };
      const { visible, next } = await summaries(principal, orgs[index]!, position.token);
      const following = next !== undefined ? { org: orgs[index], token: next } : index + 1 < orgs.length ? { org: orgs[index + 1], token: undefined } : undefined;
      return { environments: visible, ...(following ? { nextToken: encodeListToken(following) } : {}) };
    },

    async create(principal, ref) {
      const valid = validateEnvironmentRef(ref);
      if (!isMember(principal, valid.org)) requireMember(principal, valid.org);
      requireOrgAction(principal, valid.org, 'create-environment');
      const id = randomUUID();
      const createdBy = principal.token?.kind === 'team' && principal.token.team ? teamSubject(principal.token.team) : userSubject(principal.login);
      await audited(deps, principal, spec(valid, 'environment.created', 1, `created environment ${formatEnvironmentRef(valid)}`), async () => {
        const encryptedDataKey = await newEncryptedDataKey(deps, id);
        const definition = await storeDefinition(deps, id, '');
        await store.create({ ...valid, id, encryptedDataKey, createdBy }, { definition, createdAt: deps.now(), creatorLogin: principal.login });
      });
    },

    async clone(principal, source, request) {
      await cloneEnvironment(deps, principal, source, request);
    },

    async getDefinition(principal, ref, version, decrypt) {
      const environment = await loadEnvironment(deps, principal, ref, decrypt ? 'open' : 'read');
      const revision = await resolveRevision(deps, environment, version);
      const stored = await definitionAt(deps, environment, revision);
      const view = { revision, etag: environmentEtag(environment, revision) };
      if (!decrypt) return { ...view, yaml: stored };
      const description = `revealed the secrets of revision ${revision} of ${formatEnvironmentRef(environment)}`;
      const crypt = await environmentCrypt(deps, environment);
      const yaml = await audited(deps, principal, spec(environment, 'environment.secrets-revealed', revision, description), () => decryptSecrets(stored, crypt.decrypt));
      return { ...view, yaml };
    },

    async update(principal, ref, yaml, etag) {
      if (typeof yaml !== 'string') throw new InvalidInputError('The definition must be YAML text.');
      return saveRevision(principal, ref, yaml, etag);
    },

    async delete(principal, ref) {
      const environment = await loadEnvironment(deps, principal, ref, 'delete');
      await audited(deps, principal, spec(environment, 'environment.deleted', environment.revision, `deleted environment ${formatEnvironmentRef(environment)}`), () =>
        store.delete(environment.id, environment.revision),
      );
    },

    async check(principal, ref, version, showSecrets) {
      const environment = await loadEnvironment(deps, principal, ref, showSecrets ? 'open' : 'read');
      const revision = await resolveRevision(deps, environment, version);
      const crypt = await environmentCrypt(deps, environment);
      const options = { ...evaluationOptions(deps, principal, environment.org, showSecrets ? 'open' : 'check', crypt), showSecrets };
      const check = async () => checkEnvironment(evaluationName(environment), await definitionAt(deps, environment, revision), options);
      if (!showSecrets) return check();
      const description = `revealed the secrets of revision ${revision} of ${formatEnvironmentRef(environment)} (check)`;
      return audited(deps, principal, spec(environment, 'environment.secrets-revealed', revision, description), check);
    },

    async checkYaml(principal, org, yaml, showSecrets) {
      validateOrgName(org);
      requireMember(principal, org);
      if (typeof yaml !== 'string') throw new InvalidInputError('The definition must be YAML text.');
      // Not stored, so it has no key: its ciphertexts, if any, are reported as undecryptable.
      // Showing secrets evaluates imports as opening does: their secrets only for a caller who may open them.
      return checkEnvironment(ANONYMOUS_ENVIRONMENT, yaml, { ...evaluationOptions(deps, principal, org, showSecrets ? 'open' : 'check', undefined), showSecrets });
    },

    async listGrants(principal, ref) {
      const environment = await loadEnvironment(deps, principal, ref, 'read');
      return Object.entries(environment.grants).map(([key, permission]) => {
        const [subject, name] = key.split(':') as ['user' | 'team', string];
        return { subject, name, permission };
      });
    },

    async setGrant(principal, ref, target, permission) {
      if (permission !== null && !isEnvironmentPermission(permission)) {
        throw new InvalidInputError(`Unknown permission '${String(permission).slice(0, 40)}': use read, open, write or admin.`);
      }
      if (!target || typeof target !== 'object' || ('user' in target) === ('team' in target)) throw new InvalidInputError('Give exactly one of a user or a team.');
      const environment = await loadEnvironment(deps, principal, ref, 'manage-permissions');
      let subject: string;
      if ('user' in target) {
        const memberships = await deps.storage.identity.listMemberships(String(target.user));
        if (!memberships.some((m) => m.org === environment.org)) throw new NotFoundError(`'${target.user}' is not a member of '${environment.org}'.`);
        subject = userSubject(target.user);
      } else {
        await deps.storage.identity.getTeam(environment.org, String(target.team));
        subject = teamSubject(target.team);
      }
      const name = formatEnvironmentRef(environment);
      const description = `${permission === null ? 'removed the permission of' : `gave '${permission}' to`} ${subject} on environment ${name}`;
      await audited(deps, principal, { org: environment.org, event: 'environment.permission-changed', target: name, description }, () =>
        store.setGrant(environment.id, subject, permission),
      ).catch((error: unknown) => {
        if (error instanceof NotFoundError) throw environmentNotFound(environment);
        throw error;
      });
    },

    issuerDiscovery: () => discoveryDocument(deps),
    issuerKeySet: () => issuerKeySet(deps),
    async issuerKeys(principal) {
      requireAdmin(principal);
      return issuerKeyStandings(deps);
    },
    async rotateIssuerKey(principal) {
      requireAdmin(principal);
      // The site log (org ''): the issuer belongs to the deployment, not to one organization.
      return audited(deps, principal, { org: '', event: 'oidc.issuer-key-rotated', target: 'oidc-issuer', description: 'rotated the OIDC issuer signing key' }, () =>
        rotateIssuerKey(deps),
      );
    },
  };
}

function encodeListToken(position: { org?: string; token?: string }): string {
  return Buffer.from(JSON.stringify([position.org, position.token ?? null]), 'utf8').toString('base64url');
}

function decodeListToken(token: string): { org?: string; token?: string } {
  try {
    const [org, inner] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof org === 'string' && (inner === null || typeof inner === 'string')) return { org, token: inner ?? undefined };
  } catch {
    // Reported below.
  }
  throw new InvalidInputError('Invalid continuation token: pass the nextToken of the previous page unchanged.');
}
