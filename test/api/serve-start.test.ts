import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { failed, ok, PulumiWire } from './pulumi-wire.js';
import { startServe } from './serve-process.js';

const BUNDLE = fileURLToPath(new URL('../../dist/cli/stackyard.mjs', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'stackyard-serve-start-'));

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('stackyard serve start-up', () => {
  it('without STACKYARD_ADMIN_TOKEN, prints a working administrator token on the first start only', async () => {
    const first = await startServe({ storage: 'local', dataDir, adminToken: null });
    const token = /^\s+(\S+)$/m.exec(first.stdout())?.[1];
    expect(token).toBeDefined();
    expect(first.stdout()).toContain(`Log in with: pulumi login ${first.url}`);
    const wire = new PulumiWire(first.url);
    try {
      expect(ok(await wire.call('GET', '/api/user', { auth: { token: token! } }))).toMatchObject({ githubLogin: 'admin', siteAdmin: true });
    } finally {
      wire.close();
      await first.stop();
    }

    const second = await startServe({ storage: 'local', dataDir, adminToken: null });
    const again = new PulumiWire(second.url);
    try {
      expect(second.stdout()).not.toContain(token!);
      expect(second.stdout()).toContain("Administrator 'admin' exists");
      ok(await again.call('GET', '/api/user', { auth: { token: token! } }));
    } finally {
      again.close();
      await second.stop();
    }
  });

  it('re-applies STACKYARD_ADMIN_TOKEN under STACKYARD_ADMIN_USER and prints STACKYARD_PUBLIC_URL to log in to', async () => {
    const serve = await startServe({
      storage: 'local',
      adminToken: 'configured-admin-token',
      env: { STACKYARD_ADMIN_USER: 'ops', STACKYARD_PUBLIC_URL: 'https://pulumi.example.test/' },
    });
    const wire = new PulumiWire(serve.url);
    try {
      expect(serve.stdout()).toContain('Log in with: pulumi login https://pulumi.example.test ');
      expect(serve.stdout()).not.toContain('configured-admin-token');
      expect(ok(await wire.call('GET', '/api/user', { auth: { token: 'configured-admin-token' } }))).toMatchObject({ githubLogin: 'ops', siteAdmin: true });
      failed(await wire.call('GET', '/api/user', { auth: { token: 'another-token' } }), 401);
    } finally {
      wire.close();
      await serve.stop();
    }
  });

  it('fails clearly in aws mode when the table, bucket or key is not configured', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, STACKYARD_STORAGE: 'aws' };
    delete env.STACKYARD_TABLE;
    delete env.STACKYARD_BUCKET;
    delete env.STACKYARD_KMS_KEY_ID;

    const result = spawnSync(process.execPath, [BUNDLE, 'serve', '--port', '0'], { env, encoding: 'utf8', timeout: 20_000 });

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('STACKYARD_STORAGE=aws needs STACKYARD_TABLE, STACKYARD_BUCKET, STACKYARD_KMS_KEY_ID');
  });

  it('keeps the server out of the entry chunk, so `stackyard --version` does not load it', () => {
    const entry = readFileSync(BUNDLE, 'utf8');

    expect(entry).not.toContain('Stackyard serves the Pulumi service API');
    expect(entry).not.toContain('@aws-lambda-powertools');
  });
});
