import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../core/errors.js';
import { uniqueId, type ContractEnv, type ContractSetup } from './setup.js';

/** The SourceArchiveStore port's guarantees (shared/ports/source-archive-store.ts), for any adapter. */
export function sourceArchiveStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`SourceArchiveStore contract: ${adapterName}`, () => {
    let env: ContractEnv;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env?.cleanup();
    });
    const archives = () => env.storage.sourceArchives;
    const bytes = (length: number, step: number) => Uint8Array.from({ length }, (_, i) => (i * step) % 251);

    it('stores an archive whole, never replaces it, and deletes every archive of its stack only', async () => {
      const [stack, other, first, second] = [uniqueId(), uniqueId(), uniqueId(), uniqueId()];
      await archives().putArchive(stack, first, bytes(70_000, 7));
      await archives().putArchive(stack, second, bytes(10, 3));
      await archives().putArchive(other, first, bytes(5, 1));

      await expect(archives().putArchive(stack, first, bytes(3, 2))).rejects.toBeInstanceOf(ConflictError);
      expect(Buffer.from((await archives().getArchive(stack, first))!)).toEqual(Buffer.from(bytes(70_000, 7)));
      expect(await archives().getArchive(stack, uniqueId())).toBeUndefined();
      await archives().deleteStackArchives(stack);
      expect(await archives().getArchive(stack, first)).toBeUndefined();
      expect(await archives().getArchive(stack, second)).toBeUndefined();
      expect(Buffer.from((await archives().getArchive(other, first))!)).toEqual(Buffer.from(bytes(5, 1)));
      await archives().deleteStackArchives(stack);
    });

    it('takes one PUT to its direct upload location, where it offers one, and refuses a second', async () => {
      const [stack, id] = [uniqueId(), uniqueId()];
      const archive = bytes(5_000, 11);
      const sha256 = createHash('sha256').update(archive).digest('hex');

      const location = await archives().uploadLocation(stack, id, { size: archive.length, sha256 }, 60);

      if (location === undefined) return; // uploads go through the API (local storage)
      const put = await fetch(location.url, { method: 'PUT', headers: location.headers, body: archive });
      expect(put.status).toBe(200);
      expect(Buffer.from((await archives().getArchive(stack, id))!)).toEqual(Buffer.from(archive));
      const again = await fetch(location.url, { method: 'PUT', headers: location.headers, body: bytes(5_000, 13) });
      expect(again.status).toBe(412);
      expect(Buffer.from((await archives().getArchive(stack, id))!)).toEqual(Buffer.from(archive));
      await archives().deleteStackArchives(stack);
    });
  });
}
