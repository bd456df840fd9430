import { validateBody } from '../decode.js';
import { jsonResponse, okResponse } from '../respond.js';
import type { Route } from '../router.js';
import { batchDecryptSchema, batchEncryptSchema, decryptionLogSchema, decryptSchema, encryptSchema } from '../schemas-secrets.js';

const STACK = '/api/stacks/{orgName}/{projectName}/{stackName}';

const fromBase64 = (text: string) => Buffer.from(text, 'base64');
const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/** `--show-secrets` audit calls: the CLI ignores the answer and any error; we only require a visible stack. */
function decryptionLogRoute(segment: 'log-decryption' | 'log-batch-decryption'): Route {
  return {
    method: 'POST',
    path: `${STACK}/decrypt/${segment}`,
    group: 'secrets',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(decryptionLogSchema, await ctx.jsonBody(), `${segment} request`);
      const what = segment === 'log-decryption' ? `secret '${body?.secretName ?? ''}'` : `secrets for '${body?.commandName ?? ''}'`;
      await ctx.services.secrets.reportDecryption(principal, ctx.stackRef(), what);
      return okResponse();
    },
  };
}

export const secretRoutes: Route[] = [
  {
    method: 'POST',
    path: `${STACK}/encrypt`,
    group: 'secrets',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const body = validateBody(encryptSchema, await ctx.jsonBody(), 'encrypt request');
      const [ciphertext] = await ctx.services.secrets.encrypt(principal, ref, [fromBase64(body.plaintext)]);
      return jsonResponse(200, { ciphertext: toBase64(ciphertext!) });
    },
  },
  {
    method: 'POST',
    path: `${STACK}/decrypt`,
    group: 'secrets',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const body = validateBody(decryptSchema, await ctx.jsonBody(), 'decrypt request');
      const [plaintext] = await ctx.services.secrets.decrypt(principal, ref, [fromBase64(body.ciphertext)]);
      return jsonResponse(200, { plaintext: toBase64(plaintext!) });
    },
  },
  {
    method: 'POST',
    path: `${STACK}/batch-encrypt`,
    group: 'secrets',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const body = validateBody(batchEncryptSchema, await ctx.jsonBody(), 'batch-encrypt request');
      const ciphertexts = await ctx.services.secrets.encrypt(principal, ref, (body.plaintexts ?? []).map(fromBase64));
      return jsonResponse(200, { ciphertexts: ciphertexts.map(toBase64) });
    },
  },
  {
    method: 'POST',
    path: `${STACK}/batch-decrypt`,
    group: 'secrets',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const body = validateBody(batchDecryptSchema, await ctx.jsonBody(), 'batch-decrypt request');
      const sent = body.ciphertexts ?? [];
      const plaintexts = await ctx.services.secrets.decrypt(principal, ref, sent.map(fromBase64));
      // Keyed by the ciphertext strings exactly as sent: the CLI looks each one up by its own string.
      const map: Record<string, string> = {};
      sent.forEach((ciphertext, i) => {
        map[ciphertext] = toBase64(plaintexts[i]!);
      });
      return jsonResponse(200, { plaintexts: map });
    },
  },
  decryptionLogRoute('log-decryption'),
  decryptionLogRoute('log-batch-decryption'),
];
