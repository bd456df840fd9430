import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalStorage } from '../../adapters/local/index.js';
import type { Storage } from '../../ports/index.js';
import { InvalidInputError, UnavailableError } from '../errors.js';
import { hookSecretOpener, openHookSecret, sealHookSecret } from './hook-secrets.js';

describe('hook signing secrets at rest', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stackyard-hook-secrets-'));
  let storage: Storage;
  beforeAll(async () => {
    storage = await createLocalStorage({ dataDir });
  });
  afterAll(async () => {
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('seals a secret so that only the same hook opens it', async () => {
    const scope = { org: 'acme', stackId: 'stack-1' };
    const sealed = await sealHookSecret(storage.keys, scope, 'ci', 'hook-signing-secret-ü');

    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('hook-signing-secret');
    expect(await openHookSecret(storage.keys, scope, 'ci', sealed)).toBe('hook-signing-secret-ü');
    await expect(openHookSecret(storage.keys, scope, 'other', sealed)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(openHookSecret(storage.keys, { org: 'acme' }, 'ci', sealed)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(openHookSecret(storage.keys, scope, 'ci', `${sealed.slice(0, -4)}AAAA`)).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('opens each sealed secret through the key service once per cache period, and refuses without one', async () => {
    const scope = { org: 'acme' };
    const sealed = await sealHookSecret(storage.keys, scope, 'ci', 'another-secret-123');
    let decryptions = 0;
    const counting = { ...storage.keys, generateDataKey: storage.keys.generateDataKey.bind(storage.keys), decryptDataKey: (c: Uint8Array, ctx: Record<string, string>) => (decryptions++, storage.keys.decryptDataKey(c, ctx)) };
    let time = 0;
    const open = hookSecretOpener(counting, 1_000, () => time);

    const first = await open(scope, 'ci', sealed);
    const second = await open(scope, 'ci', sealed);
    time = 2_000;
    const third = await open(scope, 'ci', sealed);

    expect([first, second, third]).toEqual(['another-secret-123', 'another-secret-123', 'another-secret-123']);
    expect(decryptions).toBe(2);
    await expect(hookSecretOpener(undefined)(scope, 'ci', sealed)).rejects.toBeInstanceOf(UnavailableError);
  });
});
