/**
 * Rules for deployments the service accepts from outside an update (import, a stack's initial state), and the
 * URN rewrite of a rename. The checks follow the Pulumi CLI's own integrity check (`Snapshot.VerifyIntegrity`), so
 * whatever we store the CLI can load again: every reference points to a resource earlier in the list, and a URN
 * appears at most once among resources not marked for deletion.
 */
import { InvalidInputError } from '../errors.js';
import type { StackRef } from '../names.js';
import type { UntypedDeployment } from '../checkpoints/index.js';
import { declaresIntegrityError } from '../checkpoints/deployment-integrity.js';
import { findIntegrityViolation, integrityError } from '../checkpoints/deployment-integrity.js';

export const ROOT_STACK_TYPE = 'pulumi:pulumi:Stack';
export const SUPPORTED_DEPLOYMENT_VERSIONS: readonly number[] = [3, 4];
const URN_PREFIX = 'urn:pulumi:';

type Json = Record<string, unknown>;

export interface PendingOperationSummary {
  urn: string;
  type: string;
}

export interface ValidatedDeployment {
  deployment: UntypedDeployment;
  resourceCount: number;
  /** Operations that began and never finished; the caller should tell the user they are kept. */
  pendingOperations: PendingOperationSummary[];
}

/** Checks an untyped deployment; an `InvalidInputError` names what is wrong and where. */
export function validateDeployment(untyped: unknown): ValidatedDeployment {
  if (!isObject(untyped)) throw invalid('the body must be a JSON object with "version" and "deployment".');
  const { version, features, deployment } = untyped;
  if (typeof version !== 'number' || !SUPPORTED_DEPLOYMENT_VERSIONS.includes(version)) {
    throw invalid(
      `deployment version ${JSON.stringify(version)} is not supported; Stackyard stores versions 3 and 4. Export ` +
        `the state again with a current Pulumi or Stackyard CLI.`,
    );
  }
  if (features !== undefined && (!Array.isArray(features) || !features.every((f) => typeof f === 'string'))) {
    throw invalid('"features" must be a list of strings.');
  }
  if (!isObject(deployment)) throw invalid('"deployment" must be a JSON object.');
  if (!isObject(deployment.manifest)) throw invalid('"deployment.manifest" is missing; every deployment has one.');
  if (deployment.secrets_providers !== undefined && deployment.secrets_providers !== null) {
    if (!isObject(deployment.secrets_providers) || typeof deployment.secrets_providers.type !== 'string') {
      throw invalid('"deployment.secrets_providers" must be an object with a "type".');
    }
  }

  const resources = listField(deployment, 'resources');
  resources.forEach((resource, index) => checkResourceShape(resource, `resource ${index + 1}`));
  // A state its writer declared broken (`stack import --force`, or the Pulumi CLI's own record) is kept as it is.
  if (!declaresIntegrityError(deployment.metadata as { integrity_error?: unknown } | undefined)) checkReferences(resources as Json[]);

  const operations = listField(deployment, 'pending_operations');
  const pendingOperations = operations.map((operation, index) => {
    const where = `pending operation ${index + 1}`;
    if (!isObject(operation) || typeof operation.type !== 'string') {
      throw invalid(`${where} must be an object with a "type" and a "resource".`);
    }
    checkResourceShape(operation.resource, `the resource of ${where}`);
    return { urn: (operation.resource as Json).urn as string, type: operation.type };
  });

  return {
    deployment: { version, ...(features !== undefined ? { features: features as string[] } : {}), deployment },
    resourceCount: resources.length,
    pendingOperations,
  };
}

/** Pulumi's `resourceCount`: every resource in the deployment, the root stack resource included. */
export function countResources(deployment: UntypedDeployment): number {
  const resources = deployment.deployment.resources;
  return Array.isArray(resources) ? resources.length : 0;
}

/** Whether the deployment holds anything besides the root `pulumi:pulumi:Stack` resource. */
export function holdsResources(deployment: UntypedDeployment): boolean {
  const resources = deployment.deployment.resources;
  return Array.isArray(resources) && resources.some((r) => !isObject(r) || r.type !== ROOT_STACK_TYPE);
}

/**
 * The deployment as it reads after the stack `from` is renamed to `to` (`edit.RenameStack` in the Pulumi CLI):
 * every URN of the old stack and project is rewritten wherever a resource refers to one, the root stack resource's
 * name becomes `<project>-<stack>`, and a service secrets provider names the new stack. Returns a new object.
 */
export function renameDeployment(untyped: UntypedDeployment, from: StackRef, to: StackRef): UntypedDeployment {
  const oldPrefix = `${URN_PREFIX}${from.stack}::${from.project}::`;
  const newPrefix = `${URN_PREFIX}${to.stack}::${to.project}::`;
  const rootName = `${to.project}-${to.stack}`;
  const rewriteUrn = (urn: unknown): unknown => {
    if (typeof urn !== 'string' || !urn.startsWith(oldPrefix)) return urn;
    const rest = urn.slice(oldPrefix.length);
    if (rest.startsWith(`${ROOT_STACK_TYPE}::`)) return `${newPrefix}${ROOT_STACK_TYPE}::${rootName}`;
    return newPrefix + rest;
  };
  const rewriteUrns = (list: unknown): unknown => (Array.isArray(list) ? list.map(rewriteUrn) : list);
  const rewriteResource = (resource: unknown): unknown => {
    if (!isObject(resource)) return resource;
    const next: Json = { ...resource };
    for (const field of ['urn', 'parent', 'deletedWith', 'viewOf'] as const) {
      if (field in next) next[field] = rewriteUrn(next[field]);
    }
    for (const field of ['dependencies', 'aliases', 'replaceWith'] as const) {
      if (field in next) next[field] = rewriteUrns(next[field]);
    }
    if (isObject(next.propertyDependencies)) {
      next.propertyDependencies = Object.fromEntries(
        Object.entries(next.propertyDependencies).map(([property, urns]) => [property, rewriteUrns(urns)]),
      );
    }
    if (typeof next.provider === 'string') {
      const split = splitProviderReference(next.provider);
      if (split) next.provider = `${rewriteUrn(split.urn) as string}::${split.id}`;
    }
    return next;
  };

  const deployment: Json = { ...untyped.deployment };
  if (Array.isArray(deployment.resources)) deployment.resources = deployment.resources.map(rewriteResource);
  if (Array.isArray(deployment.pending_operations)) {
    deployment.pending_operations = deployment.pending_operations.map((operation: unknown) =>
      isObject(operation) ? { ...operation, resource: rewriteResource(operation.resource) } : operation,
    );
  }
  const providers = deployment.secrets_providers;
  if (isObject(providers) && providers.type === 'service' && isObject(providers.state)) {
    deployment.secrets_providers = {
      ...providers,
      state: { ...providers.state, owner: to.org, project: to.project, stack: to.stack },
    };
  }
  return { ...untyped, deployment };
}

/** `<provider urn>::<provider id>`; the URN itself contains `::`, the id never does. */
function splitProviderReference(reference: string): { urn: string; id: string } | undefined {
  const at = reference.lastIndexOf('::');
  if (at <= 0) return undefined;
  return { urn: reference.slice(0, at), id: reference.slice(at + 2) };
}

function checkResourceShape(resource: unknown, where: string): void {
  if (!isObject(resource)) throw invalid(`${where} must be a JSON object.`);
  if (typeof resource.urn !== 'string' || !resource.urn.startsWith(URN_PREFIX)) {
    throw invalid(`${where} has no valid "urn" (expected 'urn:pulumi:<stack>::<project>::<type>::<name>').`);
  }
  if (typeof resource.type !== 'string' || resource.type.length === 0) {
    throw invalid(`resource '${resource.urn}' has no "type".`);
  }
}

function checkReferences(resources: Json[]): void {
  const violation = findIntegrityViolation(resources);
  if (violation) throw integrityError('deployment', violation);
}

function listField(deployment: Json, field: string): unknown[] {
  const value = deployment[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid(`"deployment.${field}" must be a list.`);
  return value;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(detail: string): InvalidInputError {
  return new InvalidInputError(`Invalid deployment: ${detail}`);
}
