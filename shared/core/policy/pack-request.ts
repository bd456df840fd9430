import { InvalidInputError } from '../errors.js';

/** Pulumi's `CreatePolicyPackRequest` as the route decoded it. */
export interface CreatePolicyPackRequest {
  name: string;
  displayName: string;
  versionTag?: string;
  policies: Record<string, unknown>[];
  description?: string;
  readme?: string;
  provider?: string;
  tags?: string[];
  repository?: string;
  runtime?: string;
  metadata?: Record<string, string>;
}

/** Pack names and version tags: the client's `policyPackVersionTagRE` (client.go), used for names as well. */
const NAME_OR_TAG = /^[a-zA-Z0-9\-_.]{1,100}$/;
const ENFORCEMENT_LEVELS = new Set(['advisory', 'mandatory', 'remediate', 'disabled']);
const MAX_POLICIES = 500;

/** Checks a pack name from a path or a body. */
export function checkPackName(name: string): string {
  if (!NAME_OR_TAG.test(name) || name === '.' || name === '..') {
    throw new InvalidInputError(`Invalid policy pack name '${name.slice(0, 100)}': use 1-100 letters, digits, '-', '_' or '.' (the "name" of the pack's package.json).`);
  }
  return name;
}

/** Checks a version tag as Pulumi's client does before it publishes. */
export function checkVersionTag(tag: string): string {
  if (!NAME_OR_TAG.test(tag) || tag === '.' || tag === '..') {
    throw new InvalidInputError(
      `Invalid version '${tag.slice(0, 100)}': a version may only contain letters, digits, '-', '_' or '.', and be 1-100 characters long (the "version" of the pack's package.json).`,
    );
  }
  return tag;
}

function checkPolicy(policy: Record<string, unknown>, seen: Set<string>): void {
  const name = policy.name;
  if (typeof name !== 'string' || !NAME_OR_TAG.test(name)) {
    throw new InvalidInputError(`Every policy needs a name of letters, digits, '-', '_' or '.'; got '${String(name).slice(0, 100)}'.`);
  }
  if (seen.has(name)) throw new InvalidInputError(`The pack names policy '${name}' twice: policy names are unique in a pack.`);
  seen.add(name);
  if (!ENFORCEMENT_LEVELS.has(String(policy.enforcementLevel))) {
    throw new InvalidInputError(`Policy '${name}' has enforcementLevel '${String(policy.enforcementLevel).slice(0, 40)}': expected advisory, mandatory, remediate or disabled.`);
  }
  const schema = policy.configSchema;
  if (schema === undefined || schema === null) return;
  if (typeof schema !== 'object' || Array.isArray(schema)) throw new InvalidInputError(`The configSchema of policy '${name}' must be an object.`);
  const { type, properties, required } = schema as Record<string, unknown>;
  if (type !== undefined && type !== 'object') throw new InvalidInputError(`The configSchema of policy '${name}' must be of type "object".`);
  if (properties !== undefined && (properties === null || typeof properties !== 'object' || Array.isArray(properties))) {
    throw new InvalidInputError(`The configSchema properties of policy '${name}' must be an object of JSON schemas.`);
  }
  if (required !== undefined && (!Array.isArray(required) || required.some((r) => typeof r !== 'string'))) {
    throw new InvalidInputError(`The configSchema required of policy '${name}' must be a list of property names.`);
  }
}

/** Checks a create request's name, version and policies; returns the version tag to use (the number when absent). */
export function checkCreateRequest(request: CreatePolicyPackRequest): void {
  checkPackName(request.name);
  if (request.versionTag !== undefined && request.versionTag !== '') checkVersionTag(request.versionTag);
  if (request.policies.length > MAX_POLICIES) throw new InvalidInputError(`A pack may hold at most ${MAX_POLICIES} policies.`);
  const seen = new Set<string>();
  for (const policy of request.policies) checkPolicy(policy, seen);
}

/** The optional parts of a create request kept with the version (docs/policy.md). */
export function requestDetails(request: CreatePolicyPackRequest): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  for (const key of ['description', 'readme', 'provider', 'tags', 'repository', 'runtime', 'metadata'] as const) {
    if (request[key] !== undefined && request[key] !== '') details[key] = request[key];
  }
  return details;
}
