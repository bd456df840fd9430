import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';

/**
 * A run's token travels to its CodeBuild build sealed under the deployment's KMS key, as an environment override,
 * so the build's metadata (which `codebuild:BatchGetBuilds` shows) holds only ciphertext. The encryption context binds
 * it to its run and to this purpose; the build's role may decrypt with this purpose only (infra: the runner's IAM
 * condition), which opens no stack secret.
 */
export const RUN_TOKEN_PURPOSE = 'stackyard-run-token';

/** The encryption context of run `runId`'s sealed token. */
export function runTokenContext(runId: string): Record<string, string> {
  return { purpose: RUN_TOKEN_PURPOSE, 'stackyard:run': runId };
}

/** Seals `token` for run `runId` under `keyId` (base64 ciphertext). */
export async function sealRunToken(kms: KMSClient, keyId: string, runId: string, token: string): Promise<string> {
  const { CiphertextBlob } = await kms.send(new EncryptCommand({ KeyId: keyId, Plaintext: Buffer.from(token, 'utf8'), EncryptionContext: runTokenContext(runId) }));
  return Buffer.from(CiphertextBlob!).toString('base64');
}

/** Opens what `sealRunToken` sealed for the same run; KMS refuses another run's ciphertext. */
export async function openRunToken(kms: KMSClient, runId: string, sealed: string): Promise<string> {
  const { Plaintext } = await kms.send(new DecryptCommand({ CiphertextBlob: Buffer.from(sealed, 'base64'), EncryptionContext: runTokenContext(runId) }));
  return Buffer.from(Plaintext!).toString('utf8');
}
