import { randomUUID } from 'node:crypto';
import { decryptSecrets, encryptSecrets } from '../../esc/index.js';
import { audited } from '../audit/audit.js';
import { InvalidInputError } from '../errors.js';
import { requireOrgAction } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { userSubject } from '../kernel/permissions.js';
import type { Principal } from '../kernel/principal.js';
import { formatEnvironmentRef, validateEnvironmentRef, type EnvironmentRef } from '../names.js';
import { environmentCrypt, newEncryptedDataKey, storeDefinition } from './definitions.js';
import { loadEnvironment } from './environment-access.js';
import { definitionAt } from './evaluation.js';
import type { CloneRequest } from './types.js';

/**
 * `esc env clone`: a new environment from one revision of another (or all revisions up to it, with
 * `preserveHistory`), each definition's secrets opened with the source's key and sealed again under the clone's own.
 * It takes `open` on the source, since the clone's creator may open the clone, and `create-environment` in the org.
 * Revisions are written one after another: a clone that fails midway keeps the revisions copied so far.
 */
export async function cloneEnvironment(deps: ServiceDeps, principal: Principal, source: EnvironmentRef, request: CloneRequest): Promise<void> {
  if (request === null || typeof request !== 'object') throw new InvalidInputError('The clone request must be a JSON object.');
  const environment = await loadEnvironment(deps, principal, source, 'open');
  const target = validateEnvironmentRef({ org: environment.org, project: request.project || environment.project, name: request.name });
  requireOrgAction(principal, target.org, 'create-environment');
  const version = request.version ?? environment.revision;
  if (!Number.isSafeInteger(version) || version < 1 || version > environment.revision) {
    throw new InvalidInputError(`Environment '${formatEnvironmentRef(environment)}' has no revision ${String(version).slice(0, 20)} to clone.`);
  }
  const numbers = request.preserveHistory ? Array.from({ length: version }, (_, i) => i + 1) : [version];
  const tags = request.preserveRevisionTags ? (await deps.storage.environments.listTags(environment.id)).filter((t) => numbers.includes(t.revision)) : [];
  const store = deps.storage.environments;
  const description = `cloned ${formatEnvironmentRef(environment)} (revision ${version}) into ${formatEnvironmentRef(target)}`;
  await audited(deps, principal, { org: target.org, event: 'environment.cloned', target: formatEnvironmentRef(target), description }, async () => {
    const id = randomUUID();
    const from = await environmentCrypt(deps, environment);
    const encryptedDataKey = await newEncryptedDataKey(deps, id);
    const to = await environmentCrypt(deps, { ...environment, id, encryptedDataKey });
    const creatorLogin = principal.login;
    const resealed = async (number: number) => {
      const plaintext = await decryptSecrets(await definitionAt(deps, environment, number), from.decrypt);
      return storeDefinition(deps, id, await encryptSecrets(plaintext, to.encrypt));
    };
    const grants = request.preserveAccess ? environment.grants : {};
    let clone = await store.create(
      { ...target, id, encryptedDataKey, createdBy: userSubject(creatorLogin), grants },
      { definition: await resealed(numbers[0]!), createdAt: deps.now(), creatorLogin },
    );
    for (const number of numbers.slice(1)) {
      clone = await store.addRevision(id, clone.revision, { definition: await resealed(number), createdAt: deps.now(), creatorLogin });
    }
    const renumber = (revision: number) => (request.preserveHistory ? revision : 1);
    for (const tag of tags) await store.createTag(id, { ...tag, revision: renumber(tag.revision), editorLogin: creatorLogin });
  });
}
