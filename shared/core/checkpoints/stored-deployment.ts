/**
 * Reading a stored deployment document. Plain checkpoint saves are stored as the PATCH body was received, so only
 * the deployment's own fields are taken (`{version, features?, deployment}`); its own module so that reading a
 * stack's state and replaying a journal read a base the same way without loading each other.
 */
import { InvalidInputError } from '../errors.js';
import type { VersionedDeployment } from './types.js';

/** Parses the stored deployment `name`; `InvalidInputError` when it is not one. */
export function parseStoredDeployment(bytes: Uint8Array, name: string): VersionedDeployment {
  const parsed = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as unknown;
  if (typeof parsed !== 'object' || parsed === null || typeof (parsed as VersionedDeployment).deployment !== 'object') {
    throw new InvalidInputError(`Stored checkpoint ${name} is not a deployment.`);
  }
  const { version, features, deployment } = parsed as VersionedDeployment;
  return Array.isArray(features) && features.length > 0 ? { version, features, deployment } : { version, deployment };
}
