import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filesContain } from '../../../test/support/files-contain.js';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import { DiagnosticsError, InvalidInputError, NotFoundError } from '../errors.js';
import type { Principal } from '../kernel/principal.js';
import { createEnvironmentService } from './environment-service.js';
import type { EnvironmentService } from './types.js';

let fx: ServiceFixture;
let envs: EnvironmentService;
let alice: Principal;

beforeEach(async () => {
  fx = await serviceFixture();
  envs = createEnvironmentService(fx.deps);
  alice = await fx.user('alice', ['acme', 'globex']);
  await envs.create(alice, { org: 'acme', project: 'default', name: 'base' });
  await envs.update(alice, { org: 'acme', project: 'default', name: 'base' }, 'values:\n  pulumiConfig:\n    region: us-east-1\n');
});

afterEach(async () => {
  await fx.close();
});

describe('anonymous environments (yaml/open)', () => {
  it("keeps the caller's own secret sealed in the session and reveals it only on reading it back", async () => {
    const yaml = 'imports: [base]\nvalues:\n  pulumiConfig:\n    token:\n      fn::secret: s3cr3t-own-value\n';

    const { id } = await envs.openYaml(alice, 'acme', yaml, 60_000);
    const opened = await envs.readYamlOpen(alice, 'acme', id);

    const config = opened.properties.pulumiConfig!.value as Record<string, { value: unknown; secret?: boolean }>;
    expect(config.token).toMatchObject({ value: 's3cr3t-own-value', secret: true });
    expect(config.region!.value).toBe('us-east-1');
    expect(await filesContain(fx.dataDir, 's3cr3t-own-value')).toBe(false);
  });

  it('ends with its duration, belongs to its caller and organization, and refuses what it cannot evaluate', async () => {
    const bob = await fx.user('bob', ['acme']);
    const { id } = await envs.openYaml(alice, 'acme', '{"imports":["base"]}', 60_000);

    await expect(envs.readYamlOpen(bob, 'acme', id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(envs.readYamlOpen(alice, 'globex', id)).rejects.toBeInstanceOf(NotFoundError);
    fx.advance(60_001);
    await expect(envs.readYamlOpen(alice, 'acme', id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(envs.openYaml(alice, 'acme', '{"imports":["nowhere"]}')).rejects.toBeInstanceOf(DiagnosticsError);
    await expect(envs.openYaml(alice, 'acme', 'values: {a: 1}\n', 25 * 60 * 60 * 1000)).rejects.toBeInstanceOf(InvalidInputError);
  });
});
