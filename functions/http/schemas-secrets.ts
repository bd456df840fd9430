import * as z from 'zod/mini';

/** Request bodies of the secrets function's routes (secrets.ts). */

/** Standard base64 with padding (RFC 4648 §4), which is how Go encodes `[]byte`. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const base64String = z.string().check(z.regex(BASE64, 'must be standard base64 with padding'));

export const encryptSchema = z.object({ plaintext: base64String });
export const decryptSchema = z.object({ ciphertext: base64String });
export const batchEncryptSchema = z.object({ plaintexts: z.nullable(z.array(base64String)) });
export const batchDecryptSchema = z.object({ ciphertexts: z.nullable(z.array(base64String)) });

/**
 * `POST …/decrypt/log-decryption` and `…/log-batch-decryption` (`apitype.LogDecryptionRequest`): both fields are
 * `omitempty` strings in Go, so either may be absent (or null, which Go decodes as empty); no body at all is `{}`.
 */
export const decryptionLogSchema = z.optional(
  z.object({
    secretName: z.nullish(z.string('must be the name of the secret shown')),
    commandName: z.nullish(z.string('must be the command that showed the secrets')),
  }),
);
