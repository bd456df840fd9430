/**
 * Property values in an import file, as Pulumi serializes them there (`stack.SerializeProperties`): secrets
 * encrypted with the stack's secrets manager. They go through the same serializer as the state, on a resource
 * standing in for the file's entry.
 */
import { DeploymentSerializer, loadDeployment, type SecretsCrypter } from '../state/deployment.js';
import type { PropertyMap } from '../resource/properties.js';

const STAND_IN = { urn: 'urn:pulumi:import::file::import:file:Entry::entry', custom: false, type: 'import:file:Entry' };

/** The engine's values of a serialized map (secrets decrypted). */
export async function decodeFileProperties(serialized: Record<string, unknown>, crypter: SecretsCrypter): Promise<PropertyMap> {
  const snapshot = await loadDeployment({ version: 3, deployment: { resources: [{ ...STAND_IN, inputs: serialized }] } }, crypter);
  return snapshot.resources[0]?.inputs ?? {};
}

/** The serialized form of engine values (secrets encrypted), as an import file holds them. */
export async function encodeFileProperties(values: PropertyMap, crypter: SecretsCrypter): Promise<Record<string, unknown>> {
  const [stored] = await new DeploymentSerializer(crypter).toStored([{ ...STAND_IN, inputs: values }]);
  return (stored?.inputs ?? {}) as Record<string, unknown>;
}
