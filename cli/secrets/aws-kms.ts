/** The KMS call of the `awskms://` provider, in its own module so the SDK loads only when such a provider is used. */
import { DecryptCommand, KMSClient } from '@aws-sdk/client-kms';

/** Unwraps a data key (KMS Decrypt, as gocloud.dev's awskms keeper does) with the key `keyId`. */
export async function kmsDecrypt(options: { keyId: string; region?: string; endpoint?: string }, blob: Uint8Array): Promise<Uint8Array | undefined> {
  const client = new KMSClient({
    ...(options.region ? { region: options.region } : process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION ? {} : { region: 'us-east-1' }),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
  });
  try {
    return (await client.send(new DecryptCommand({ CiphertextBlob: blob, KeyId: options.keyId }))).Plaintext;
  } finally {
    client.destroy();
  }
}
