import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import { runStorageContracts, type ContractSetup } from '../../shared/testing/contracts/index.js';

/** Every byte under `dir`, searched for `needle` (gzip objects never hold tokens, so plain bytes suffice). */
async function contains(dir: string, needle: string): Promise<boolean> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const content = await fs.readFile(join(entry.parentPath, entry.name));
    if (content.includes(needle)) return true;
  }
  return false;
}

const setup: ContractSetup = async () => {
  const dataDir = await fs.mkdtemp(join(tmpdir(), 'stackyard-local-'));
  let time = 1_700_000_000_000;
  const storage = await createLocalStorage({ dataDir, now: () => time });
  return {
    storage,
    clock: {
      advance(ms: number) {
        time += ms;
      },
      now: () => time,
    },
    findPlaintext: (s) => contains(dataDir, s),
    async cleanup() {
      await storage.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
};

runStorageContracts('local', setup);
