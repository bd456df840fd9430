import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import { auditingDenials } from '../audit/denials.js';
import { ConflictError, DiagnosticsError, InvalidInputError, NotFoundError, PermissionDeniedError } from '../errors.js';
import type { Principal } from '../kernel/principal.js';
import { createEnvironmentService } from './environment-service.js';
import type { EnvironmentService } from './types.js';

const DEV = { org: 'acme', project: 'app', name: 'dev' };
const BASE = { org: 'acme', project: 'app', name: 'base' };

let fx: ServiceFixture;
let envs: EnvironmentService;
let alice: Principal;

async function auditEvents(): Promise<string[]> {
  const page = await fx.storage.audit.list({ org: 'acme' });
  return page.entries.map((entry) => entry.event);
}

beforeEach(async () => {
  fx = await serviceFixture();
  envs = auditingDenials(fx.deps, createEnvironmentService(fx.deps));
  alice = await fx.user('alice', ['acme']);
  await envs.create(alice, DEV);
});

afterEach(async () => {
  await fx.close();
});

describe('environment definitions', () => {
  it('stores a secret sealed under the environment key, shows it only decrypted on request, and audits the reveal', async () => {
    const saved = await envs.update(alice, DEV, 'values:\n  password:\n    fn::secret: hunter2\n  user: admin\n');

    const stored = await envs.getDefinition(alice, DEV, undefined, false);
    const revealed = await envs.getDefinition(alice, DEV, undefined, true);

    expect(saved.revision).toBe(2);
    expect(stored).toMatchObject({ revision: 2 });
    expect(stored.yaml).toMatch(/ciphertext: /);
    expect(stored.yaml).not.toContain('hunter2');
    expect(revealed.yaml).toContain('fn::secret: hunter2');
    expect(JSON.stringify(await fx.snapshot())).not.toContain(Buffer.from('hunter2').toString('base64'));
    expect(await auditEvents()).toEqual(expect.arrayContaining(['environment.created', 'environment.updated', 'environment.secrets-revealed']));
  });

  it('refuses a definition with errors with every diagnostic, and stores nothing', async () => {
    const before = await fx.snapshot();

    const refusal = await envs.update(alice, DEV, 'values:\n  a: ${nope}\n  b:\n    fn::join: [1, 2]\n').catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(DiagnosticsError);
    const diagnostics = (refusal as DiagnosticsError).diagnostics as { summary: string; range?: { begin: { line: number } } }[];
    expect([...new Set(diagnostics.map((d) => d.range?.begin.line))]).toEqual([2, 4]);
    expect(diagnostics[0]!.summary).toMatch(/nope/);
    expect(await fx.snapshot()).toEqual(before);
  });

  it("refuses another environment's ciphertext and a provider it cannot run, and imports a tagged revision", async () => {
    await envs.create(alice, BASE);
    await envs.update(alice, BASE, 'values:\n  token:\n    fn::secret: theirs\n  v: one\n');
    await envs.createRevisionTag(alice, BASE, 'pinned');
    await envs.update(alice, BASE, 'values:\n  v: two\n');
    const foreign = (await envs.getDefinition(alice, BASE, 'pinned', false)).yaml;

    const stolen = await envs.update(alice, DEV, foreign).catch((error: unknown) => error);
    const provider = await envs.update(alice, DEV, 'values:\n  gcp:\n    fn::open::gcp-login:\n      project: 1\n').catch((error: unknown) => error);
    await envs.update(alice, DEV, 'imports:\n  - app/base@pinned\nvalues:\n  mine: ${v}\n');
    const { id } = await envs.open(alice, DEV, undefined);

    expect(stolen).toBeInstanceOf(DiagnosticsError);
    expect(provider).toBeInstanceOf(DiagnosticsError);
    expect(await envs.readOpen(alice, DEV, id, 'mine')).toMatchObject({ value: 'one' });
  });

  it('saves with an etag only if nothing was saved since it was read', async () => {
    const read = await envs.getDefinition(alice, DEV, undefined, false);
    await envs.update(alice, DEV, 'values:\n  a: 1\n', read.etag);

    const stale = envs.update(alice, DEV, 'values:\n  a: 2\n', read.etag);

    await expect(stale).rejects.toBeInstanceOf(ConflictError);
    expect((await envs.getDefinition(alice, DEV, undefined, false)).yaml).toBe('values:\n  a: 1\n');
    expect((await envs.update(alice, DEV, 'values:\n  a: 3\n', '*')).revision).toBe(3);
  });

  it('keeps every revision, resolves tags and numbers, and rolls back by saving an old revision again', async () => {
    await envs.update(alice, DEV, 'values:\n  v: one\n');
    await envs.createRevisionTag(alice, DEV, 'stable');
    await envs.update(alice, DEV, 'values:\n  v: two\n');

    const old = await envs.getDefinition(alice, DEV, 'stable', false);
    await envs.update(alice, DEV, old.yaml);

    const history = await envs.listRevisions(alice, DEV, {});
    expect(history.map((r) => [r.number, r.tags])).toEqual([
      [4, ['latest']],
      [3, []],
      [2, ['stable']],
      [1, []],
    ]);
    expect((await envs.getDefinition(alice, DEV, '3', false)).yaml).toContain('two');
    expect((await envs.getDefinition(alice, DEV, undefined, false)).yaml).toContain('one');
    await expect(envs.getDefinition(alice, DEV, '9', false)).rejects.toBeInstanceOf(NotFoundError);
    await expect(envs.createRevisionTag(alice, DEV, 'latest')).rejects.toBeInstanceOf(InvalidInputError);
    await expect(envs.createRevisionTag(alice, DEV, 'stable')).rejects.toBeInstanceOf(ConflictError);
  });
});

describe('opening environments', () => {
  it('opens with imports merged and secrets revealed, and reads one property of the session', async () => {
    await envs.create(alice, BASE);
    await envs.update(alice, BASE, 'values:\n  region: eu-west-1\n  token:\n    fn::secret: s3cr3t\n');
    await envs.update(alice, DEV, 'imports:\n  - app/base\nvalues:\n  url: https://${region}.example\n');

    const { id } = await envs.open(alice, DEV, undefined, 60_000);
    const opened = (await envs.readOpen(alice, DEV, id)) as { properties: Record<string, { value: unknown; secret?: boolean }> };
    const url = await envs.readOpen(alice, DEV, id, 'url');

    expect(opened.properties.token).toMatchObject({ value: 's3cr3t', secret: true });
    expect(url).toMatchObject({ value: 'https://eu-west-1.example' });
    fx.advance(60_000);
    await expect(envs.readOpen(alice, DEV, id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await auditEvents()).toContain('environment.opened');
  });

  it('lets a viewer read but not open, a team grant raise a member, and hides environments from outsiders', async () => {
    await envs.update(alice, DEV, 'values:\n  token:\n    fn::secret: s3cr3t\n');
    const viewer = await fx.user('victor', ['acme'], 'viewer');
    const bob = await fx.user('bob', ['acme']);
    const outsider = await fx.user('mallory');
    await fx.access.createTeam(fx.admin, 'acme', 'ops');
    await fx.access.changeTeamMember(fx.admin, 'acme', 'ops', 'bob', 'add');

    await expect(envs.open(viewer, DEV, undefined)).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(envs.getDefinition(viewer, DEV, undefined, true)).rejects.toBeInstanceOf(PermissionDeniedError);
    expect((await envs.getDefinition(viewer, DEV, undefined, false)).yaml).not.toContain('s3cr3t');
    await expect(envs.setGrant(bob, DEV, { user: 'victor' }, 'open')).rejects.toBeInstanceOf(PermissionDeniedError);
    await envs.setGrant(alice, DEV, { team: 'ops' }, 'admin');
    await envs.setGrant(bob, DEV, { user: 'victor' }, 'open');
    const { id } = await envs.open(bob, DEV, undefined);
    await expect(envs.readOpen(alice, DEV, id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(envs.getDefinition(outsider, DEV, undefined, false)).rejects.toBeInstanceOf(NotFoundError);
    expect((await envs.list(outsider, undefined)).environments).toEqual([]);
    expect((await envs.list(viewer, 'acme')).environments.map((e) => e.name)).toEqual(['dev']);
    expect((await envs.listGrants(alice, DEV)).map((g) => `${g.subject}:${g.name}=${g.permission}`).sort()).toEqual(['team:ops=admin', 'user:victor=open']);
    expect(await auditEvents()).toEqual(expect.arrayContaining(['authz.denied', 'environment.permission-changed']));
    const peek = await envs.checkYaml(viewer, 'acme', 'imports:\n  - app/dev\nvalues:\n  mine: 1\n', true);
    expect(JSON.stringify(peek)).not.toContain('s3cr3t');
    expect(peek.diagnostics.map((d) => d.summary).join()).toMatch(/may not open/);
  });
});

describe('clone and delete', () => {
  it('clones with history under a new key, and deletes only for admins', async () => {
    await envs.update(alice, DEV, 'values:\n  token:\n    fn::secret: s3cr3t\n');
    const member = await fx.user('bob', ['acme']);

    await envs.clone(alice, DEV, { name: 'copy', preserveHistory: true });
    const copy = { ...DEV, name: 'copy' };
    const source = await envs.getDefinition(alice, DEV, undefined, false);
    const cloned = await envs.getDefinition(alice, copy, undefined, false);

    expect(cloned.revision).toBe(2);
    expect(cloned.yaml).not.toBe(source.yaml);
    expect((await envs.getDefinition(alice, copy, undefined, true)).yaml).toContain('s3cr3t');
    await expect(envs.delete(member, DEV)).rejects.toBeInstanceOf(PermissionDeniedError);
    await envs.delete(alice, DEV);
    await expect(envs.getDefinition(alice, DEV, undefined, false)).rejects.toBeInstanceOf(NotFoundError);
    await envs.create(alice, DEV);
    expect((await envs.getDefinition(alice, DEV, undefined, false)).revision).toBe(1);
  });
});
