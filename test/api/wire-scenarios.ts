import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { failed, ok, type PulumiWire } from './pulumi-wire.js';
import {
  createAndStart,
  createStack,
  deployment,
  engineEvents,
  manifest,
  resources,
  runUpdate,
  SECRET_SIG,
  serviceSecrets,
  stackPath,
  uniqueProject,
  urn,
  type Ref,
} from './wire-fixtures.js';

export interface WireContext {
  wire: PulumiWire;
  /** The serve process's administrator token (STACKYARD_ADMIN_TOKEN); its login and personal org are `admin`. */
  adminToken: string;
  url: string;
}

const ORG = 'admin';

/**
 * The Pulumi CLI's call sequences (pulumi-service-api.md §4.1 and §5-§6), replayed against a running `serve`. Each
 * test works on its own project, so the order of tests does not matter.
 */
export function defineWireScenarios(context: () => WireContext): void {
  const refIn = (prefix: string, stack = 'dev'): Ref => ({ org: ORG, project: uniqueProject(prefix), stack });

  describe('login', () => {
    it('validates the token, finds the default org and reads capabilities', async () => {
      const { wire, adminToken } = context();
      const auth = { token: adminToken };

      const [user, defaultOrg, capabilities] = await Promise.all([
        wire.call('GET', '/api/user', { auth }),
        wire.call('GET', '/api/user/organizations/default', { auth }),
        wire.call('GET', '/api/capabilities', { auth }),
      ]);

      expect(ok(user)).toMatchObject({ githubLogin: 'admin', siteAdmin: true, organizations: expect.any(Array) });
      for (const org of user.json.organizations) expect(org.githubLogin).toMatch(/\S/);
      expect(ok(defaultOrg)).toEqual({ GitHubLogin: 'admin', Messages: [] });
      expect(ok(capabilities)).toEqual({
        capabilities: [
          { capability: 'batch-encrypt' },
          { capability: 'deployment-schema-version', version: 1, configuration: { version: 4 } },
          { capability: 'delta-checkpoint-uploads-v2', version: 2, configuration: { checkpointCutoffSizeBytes: expect.any(Number) } },
        ],
      });
    });

    it('answers the calls it does not serve with 404 and the registry list with an empty page', async () => {
      const { wire, adminToken } = context();

      failed(await wire.call('GET', '/api/agents/signup'), 404);
      failed(await wire.call('POST', '/api/agents/signup', { body: {} }), 404);
      failed(await wire.call('GET', '/api/registry/packages/pulumi/pulumi/aws/versions/latest', { auth: { token: adminToken } }), 404);
      const packages = ok(await wire.call('GET', '/api/registry/packages?limit=499&name=aws', { auth: { token: adminToken } }));

      expect(packages).toEqual({ packages: [], continuationToken: null });
    });

    it('refuses a missing or unknown token with 401', async () => {
      const { wire } = context();

      failed(await wire.call('GET', '/api/user'), 401);
      failed(await wire.call('GET', '/api/user', { auth: { token: 'not-a-token' } }), 401);
    });
  });

  describe('stacks', () => {
    it('init, get, ls, tags, rename and rm with the CLI messages', async () => {
      const { wire, adminToken } = context();
      const auth = { token: adminToken };
      const ref = refIn('stacks');

      failed(await wire.call('GET', stackPath(ref), { auth }), 404);
      expect((await wire.call('HEAD', `/api/stacks/${ref.org}/${ref.project}`, { auth })).status).toBe(404);
      await createStack(wire, adminToken, ref);
      const again = await wire.call('POST', `/api/stacks/${ref.org}/${ref.project}`, { auth, body: { stackName: ref.stack } });
      expect(failed(again, 409)).toContain('already exists');
      expect((await wire.call('HEAD', `/api/stacks/${ref.org}/${ref.project}`, { auth })).status).toBe(200);

      const stack = ok(await wire.call('GET', stackPath(ref), { auth }));
      expect(stack).toMatchObject({ orgName: ORG, projectName: ref.project, stackName: 'dev', activeUpdate: '', tags: { 'pulumi:project': ref.project } });
      expect(stack.config ?? null).toBeNull();

      const listed = ok(await wire.call('GET', `/api/user/stacks?project=${ref.project}`, { auth }));
      expect(listed.stacks).toEqual([expect.objectContaining({ orgName: ORG, projectName: ref.project, stackName: 'dev' })]);
      expect(listed).not.toHaveProperty('continuationToken');

      ok(await wire.call('PATCH', `${stackPath(ref)}/tags`, { auth, body: { 'pulumi:project': ref.project, team: 'infra' } }));
      expect(ok(await wire.call('GET', stackPath(ref), { auth })).tags).toEqual({ 'pulumi:project': ref.project, team: 'infra' });
      failed(await wire.call('PATCH', `${stackPath(ref)}/tags`, { auth, body: { 'bad tag!': 'x' } }), 400);

      const renamed: Ref = { ...ref, stack: 'prod' };
      ok(await wire.call('POST', `${stackPath(ref)}/rename`, { auth, body: { newName: 'prod', newProject: ref.project } }));
      failed(await wire.call('GET', stackPath(ref), { auth }), 404);
      expect(ok(await wire.call('GET', stackPath(renamed), { auth })).stackName).toBe('prod');

      ok(await wire.call('DELETE', `${stackPath(renamed)}?force=false`, { auth }));
      failed(await wire.call('GET', stackPath(renamed), { auth }), 404);
    });

    it('refuses to remove a stack that still holds resources with the exact CLI message, unless forced', async () => {
      const { wire, adminToken, url } = context();
      const auth = { token: adminToken };
      const ref = refIn('rm');
      await createStack(wire, adminToken, ref);
      await runUpdate(wire, adminToken, ref, 'update', { dryRun: false, checkpoints: [deployment(url, ref, 2)] });

      const refused = await wire.call('DELETE', `${stackPath(ref)}?force=false`, { auth });

      expect(failed(refused, 400)).toBe('Bad Request: Stack still contains resources.');
      ok(await wire.call('GET', stackPath(ref), { auth }));
      ok(await wire.call('DELETE', `${stackPath(ref)}?force=true`, { auth }));
      failed(await wire.call('GET', stackPath(ref), { auth }), 404);
    });

    it('pages stack lists with non-empty continuation tokens until none is returned', async () => {
      const { wire, adminToken } = context();
      const auth = { token: adminToken };
      const project = uniqueProject('paging');
      const names = Array.from({ length: 103 }, (_, i) => `s${String(i).padStart(3, '0')}`);
      for (let i = 0; i < names.length; i += 16) {
        await Promise.all(names.slice(i, i + 16).map((stack) => createStack(wire, adminToken, { org: ORG, project, stack })));
      }

      const seen: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const query = `project=${project}${token ? `&continuationToken=${encodeURIComponent(token)}` : ''}`;
        const page = ok(await wire.call('GET', `/api/user/stacks?${query}`, { auth }));
        pages += 1;
        for (const summary of page.stacks) {
          expect(summary.projectName).toBe(project);
          expect(summary.stackName).toMatch(/^[A-Za-z0-9_.-]+$/);
          seen.push(summary.stackName);
        }
        if ('continuationToken' in page) expect(page.continuationToken).toMatch(/\S/);
        token = page.continuationToken ?? undefined;
      } while (token);

      expect(pages).toBeGreaterThan(1);
      expect([...seen].sort()).toEqual(names);
    });
  });

  describe('updates', () => {
    it('up: a dry run, then the real update with renewals, checkpoints, events and complete', async () => {
      const { wire, adminToken, url } = context();
      const auth = { token: adminToken };
      const ref = refIn('up');
      await createStack(wire, adminToken, ref);

      // Phase 1: the preview of `pulumi up` is an update with dryRun: it needs a token but saves nothing.
      const preview = await createAndStart(wire, adminToken, ref, 'update', { dryRun: true, journalVersion: 1 });
      ok(await wire.call('GET', `${stackPath(ref)}/export`, { auth }));
      ok(await wire.call('GET', stackPath(ref), { auth }));
      ok(await wire.call('POST', `${stackPath(ref)}/update/${preview.updateId}/events/batch`, { auth: { updateToken: preview.leaseToken }, body: { events: engineEvents({ create: 3 }, true) } }));
      ok(await wire.call('POST', `${stackPath(ref)}/update/${preview.updateId}/complete`, { auth: { updateToken: preview.leaseToken }, body: { status: 'succeeded' } }));

      // Phase 2: the real update, with plain checkpoints (journaling not requested).
      const real = await createAndStart(wire, adminToken, ref, 'update', { dryRun: false });
      expect(real.journalVersion).toBe(0);
      const lease = { updateToken: real.leaseToken };
      const update = `${stackPath(ref)}/update/${real.updateId}`;
      const running = ok(await wire.call('GET', stackPath(ref), { auth }));
      expect(running.activeUpdate).toBe(real.updateId);
      expect(running.currentOperation).toEqual({ kind: 'update', author: expect.any(String), started: expect.any(Number) });
      expect(Math.abs(running.currentOperation.started - Date.now() / 1000)).toBeLessThan(60);
      const renewed = ok(await wire.call('POST', `${update}/renew_lease`, { auth: lease, body: { token: '', duration: 300 } }));
      expect(renewed.token).toMatch(/\S/);
      expect(renewed.tokenExpiration).toBeGreaterThan(Date.now() / 1000);
      const leaseAfterRenew = { updateToken: renewed.token };
      const first = deployment(url, ref, 1, { greeting: 'hello' });
      const final = deployment(url, ref, 3, { greeting: 'hello', count: 3 });
      ok(await wire.call('PATCH', `${update}/checkpoint`, { auth: leaseAfterRenew, body: { isInvalid: false, ...first } }));
      ok(await wire.call('PATCH', `${update}/checkpoint`, { auth: leaseAfterRenew, body: { isInvalid: false, ...final } }));
      // Retried by the CLI (idempotent): the same checkpoint again is fine.
      ok(await wire.call('PATCH', `${update}/checkpoint`, { auth: leaseAfterRenew, body: { isInvalid: false, ...final } }));
      ok(await wire.call('POST', `${update}/events/batch`, { auth: leaseAfterRenew, body: { events: engineEvents({ create: 3, same: 1 }, false) } }));
      ok(await wire.call('POST', `${update}/complete`, { auth: leaseAfterRenew, body: { status: 'succeeded' } }));
      // `complete` is retried too.
      ok(await wire.call('POST', `${update}/complete`, { auth: leaseAfterRenew, body: { status: 'succeeded' } }));

      expect(ok(await wire.call('GET', `${stackPath(ref)}/export`, { auth }))).toEqual(final);
      const stack = ok(await wire.call('GET', stackPath(ref), { auth }));
      expect(stack).toMatchObject({ activeUpdate: '', version: real.version });
      expect(stack).not.toHaveProperty('currentOperation');
      const history = ok(await wire.call('GET', `${stackPath(ref)}/updates?pageSize=10&page=1`, { auth }));
      expect(history.updates).toEqual([
        expect.objectContaining({ kind: 'update', result: 'succeeded', version: real.version, message: 'replayed by the API tests', resourceChanges: { create: 3, same: 1 }, environment: { 'exec.kind': 'cli', 'git.head': 'abc123' } }),
      ]);
      expect(history.updates[0].startTime).toBeGreaterThan(0);
      expect(history.updates[0].endTime).toBeGreaterThanOrEqual(history.updates[0].startTime);
      expect(ok(await wire.call('GET', `${stackPath(ref)}/updates/latest`, { auth })).info).toMatchObject({ kind: 'update', version: real.version });
      failed(await wire.call('POST', `${update}/renew_lease`, { auth: leaseAfterRenew, body: { token: '', duration: 300 } }), 403);
    });

    it('preview, refresh and destroy: previews leave no history, refresh and destroy do', async () => {
      const { wire, adminToken, url } = context();
      const auth = { token: adminToken };
      const ref = refIn('ops');
      await createStack(wire, adminToken, ref);
      await runUpdate(wire, adminToken, ref, 'update', { dryRun: false, checkpoints: [deployment(url, ref, 2)] });
      const before = ok(await wire.call('GET', stackPath(ref), { auth }));

      const preview = await runUpdate(wire, adminToken, ref, 'preview', { dryRun: true });
      expect(preview.version).toBe(before.version);
      expect(ok(await wire.call('GET', stackPath(ref), { auth })).version).toBe(before.version);

      await runUpdate(wire, adminToken, ref, 'refresh', { dryRun: true });
      await runUpdate(wire, adminToken, ref, 'refresh', { dryRun: false, checkpoints: [deployment(url, ref, 2, { refreshed: true })], resourceChanges: { same: 4 } });
      await runUpdate(wire, adminToken, ref, 'destroy', { dryRun: true });
      const destroyed = { version: 3, deployment: { manifest: manifest(), secrets_providers: serviceSecrets(url, ref), metadata: {} } };
      await runUpdate(wire, adminToken, ref, 'destroy', { dryRun: false, checkpoints: [destroyed], resourceChanges: { delete: 4 } });

      const history = ok(await wire.call('GET', `${stackPath(ref)}/updates`, { auth })).updates;
      expect(history.map((u: { kind: string; result: string }) => `${u.kind}:${u.result}`)).toEqual(['destroy:succeeded', 'refresh:succeeded', 'update:succeeded']);
      expect(ok(await wire.call('GET', `${stackPath(ref)}/export`, { auth }))).toEqual(destroyed);
      // After destroy the stack holds nothing, so `destroy --remove` deletes it without force.
      ok(await wire.call('DELETE', `${stackPath(ref)}?force=false`, { auth }));
    });

    it('cancel: the update ends as failed in history and its token is refused with 403', async () => {
      const { wire, adminToken, url } = context();
      const auth = { token: adminToken };
      const ref = refIn('cancel');
      await createStack(wire, adminToken, ref);
      const running = await createAndStart(wire, adminToken, ref, 'update', { dryRun: false });
      const lease = { updateToken: running.leaseToken };
      const update = `${stackPath(ref)}/update/${running.updateId}`;
      ok(await wire.call('PATCH', `${update}/checkpoint`, { auth: lease, body: { isInvalid: false, ...deployment(url, ref, 1) } }));

      const activeUpdate = ok(await wire.call('GET', stackPath(ref), { auth })).activeUpdate;
      ok(await wire.call('POST', `${stackPath(ref)}/update/${activeUpdate}/cancel`, { auth }));

      failed(await wire.call('POST', `${update}/renew_lease`, { auth: lease, body: { token: '', duration: 300 } }), 403);
      failed(await wire.call('PATCH', `${update}/checkpoint`, { auth: lease, body: { isInvalid: false, ...deployment(url, ref, 2) } }), 403);
      failed(await wire.call('POST', `${update}/events/batch`, { auth: lease, body: { events: engineEvents({}, false) } }), 403);
      failed(await wire.call('POST', `${update}/complete`, { auth: lease, body: { status: 'succeeded' } }), 403);
      const history = ok(await wire.call('GET', `${stackPath(ref)}/updates?pageSize=10&page=1`, { auth })).updates;
      expect(history).toEqual([expect.objectContaining({ kind: 'update', result: 'failed' })]);
      expect(ok(await wire.call('GET', stackPath(ref), { auth })).activeUpdate).toBe('');
      // The stack is free again.
      await runUpdate(wire, adminToken, ref, 'update', { dryRun: false, checkpoints: [deployment(url, ref, 1)] });
    });

    it('leaseDurationSeconds on start: a lapsed short lease frees the stack and kills its token', async () => {
      const { wire, adminToken } = context();
      const auth = { token: adminToken };
      const ref = refIn('lease');
      await createStack(wire, adminToken, ref);
      const { updateID } = ok(await wire.call('POST', `${stackPath(ref)}/update`, { auth, body: { options: { dryRun: false } } }));

      const started = ok(await wire.call('POST', `${stackPath(ref)}/update/${updateID}`, { auth, body: { tags: {}, leaseDurationSeconds: 1 } }));
      const held = await wire.call('POST', `${stackPath(ref)}/update/${ok(await wire.call('POST', `${stackPath(ref)}/update`, { auth, body: { options: { dryRun: false } } })).updateID}`, { auth, body: {} });
      await new Promise((resolve) => setTimeout(resolve, 1_500));

      expect(started.tokenExpiration).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      expect(failed(held, 409)).toContain(updateID);
      failed(await wire.call('POST', `${stackPath(ref)}/update/${updateID}/renew_lease`, { auth: { updateToken: started.token }, body: { token: '', duration: 300 } }), 403);
      await createAndStart(wire, adminToken, ref, 'update', { dryRun: false });
    });

    it('50 concurrent starts on one stack: exactly one wins, 49 get the 409 naming the holder', async () => {
      const { wire, adminToken } = context();
      const auth = { token: adminToken };
      const ref = refIn('race');
      await createStack(wire, adminToken, ref);
      const ids: string[] = [];
      for (let i = 0; i < 50; i += 10) {
        const batch = await Promise.all(
          Array.from({ length: 10 }, () => wire.call('POST', `${stackPath(ref)}/update`, { auth, body: { options: { dryRun: false } } })),
        );
        ids.push(...batch.map((created) => ok(created).updateID as string));
      }

      const starts = await Promise.all(ids.map((id) => wire.call('POST', `${stackPath(ref)}/update/${id}`, { auth, body: { tags: {} } })));

      const statuses = starts.map((s) => s.status).filter((s) => s !== 200 && s !== 409);
      expect(statuses, JSON.stringify(starts.filter((s) => s.status !== 200 && s.status !== 409).map((s) => s.json))).toEqual([]);
      const winners = starts.filter((s) => s.status === 200);
      const losers = starts.filter((s) => s.status === 409);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(49);
      const winnerId = ids[starts.indexOf(winners[0]!)];
      for (const loser of losers) {
        expect(loser.json.message.startsWith('Conflict: Another update is currently in progress.')).toBe(true);
        expect(loser.json.message).toContain(winnerId);
        expect(loser.json.message).toContain('admin');
      }
    });
  });

  describe('state', () => {
    it('export and import: synchronous import, terminal status on the first poll, versions kept', async () => {
      const { wire, adminToken, url } = context();
      const auth = { token: adminToken };
      const ref = refIn('import');
      await createStack(wire, adminToken, ref);
      const empty = ok(await wire.call('GET', `${stackPath(ref)}/export`, { auth }));
      expect(empty.version).toBeGreaterThanOrEqual(3);
      expect(empty.deployment).toMatchObject({ manifest: expect.any(Object) });
      const first = deployment(url, ref, 1);
      const second = deployment(url, ref, 2, { note: 'second' });

      const imported = ok(await wire.call('POST', `${stackPath(ref)}/import`, { auth, body: first }));
      expect(imported.updateId).toMatch(/\S/);
      const status = ok(await wire.call('GET', `${stackPath(ref)}/update/${imported.updateId}`, { auth }));
      expect(status).toEqual({ status: 'succeeded', events: [] });
      const v1 = ok(await wire.call('GET', stackPath(ref), { auth })).version;
      ok(await wire.call('POST', `${stackPath(ref)}/import`, { auth, body: second }));

      expect(ok(await wire.call('GET', `${stackPath(ref)}/export`, { auth }))).toEqual(second);
      expect(ok(await wire.call('GET', `${stackPath(ref)}/export/${v1}`, { auth }))).toEqual(first);
      failed(await wire.call('GET', `${stackPath(ref)}/export/999`, { auth }), 404);
      failed(await wire.call('GET', `${stackPath(ref)}/export/abc`, { auth }), 400);
      const history = ok(await wire.call('GET', `${stackPath(ref)}/updates`, { auth })).updates;
      expect(history.map((u: { kind: string }) => u.kind)).toEqual(['import', 'import']);
    });

    it('a broken import is a 400 naming the resource and the missing URN, and changes nothing', async () => {
      const { wire, adminToken, url } = context();
      const auth = { token: adminToken };
      const ref = refIn('badimport');
      await createStack(wire, adminToken, ref);
      const good = deployment(url, ref, 1);
      ok(await wire.call('POST', `${stackPath(ref)}/import`, { auth, body: good }));
      const before = ok(await wire.call('GET', stackPath(ref), { auth }));
      const broken = deployment(url, ref, 1);
      const missing = urn(ref, 'aws:s3/bucket:Bucket', 'ghost');
      const bucket = broken.deployment.resources[2]!;
      bucket.dependencies = [missing];

      const message = failed(await wire.call('POST', `${stackPath(ref)}/import`, { auth, body: broken }), 400);

      expect(message).toContain(bucket.urn as string);
      expect(message).toContain(missing);
      expect(ok(await wire.call('GET', `${stackPath(ref)}/export`, { auth }))).toEqual(good);
      expect(ok(await wire.call('GET', stackPath(ref), { auth })).version).toBe(before.version);
      expect(ok(await wire.call('GET', `${stackPath(ref)}/updates`, { auth })).updates).toHaveLength(1);
    });

    it('a StackReference reads another stack through get and export', async () => {
      const { wire, adminToken, url } = context();
      const auth = { token: adminToken };
      const network = refIn('network');
      await createStack(wire, adminToken, network);
      const encrypted = ok(
        await wire.call('POST', `${stackPath(network)}/encrypt`, { auth, body: { plaintext: Buffer.from('"s3cr3t"').toString('base64') } }),
      ).ciphertext;
      const outputs = { vpcId: 'vpc-123', password: { [SECRET_SIG]: '1b47061264138c4ac30d75fd1eb44270', ciphertext: encrypted } };
      await runUpdate(wire, adminToken, network, 'update', { dryRun: false, checkpoints: [deployment(url, network, 1, outputs)] });

      ok(await wire.call('GET', stackPath(network), { auth }));
      const exported = ok(await wire.call('GET', `${stackPath(network)}/export`, { auth }));
      const root = exported.deployment.resources.find((r: { type: string }) => r.type === 'pulumi:pulumi:Stack');
      const { state } = exported.deployment.secrets_providers;
      const decrypted = ok(
        await wire.call('POST', `/api/stacks/${state.owner}/${state.project}/${state.stack}/batch-decrypt`, {
          auth,
          body: { ciphertexts: [root.outputs.password.ciphertext] },
        }),
      );

      expect(state.url).toBe(url);
      expect(root.outputs.vpcId).toBe('vpc-123');
      expect(Buffer.from(decrypted.plaintexts[encrypted], 'base64').toString('utf8')).toBe('"s3cr3t"');
    });

    it('history pages newest first, with cancelled updates reported as failed', async () => {
      const { wire, adminToken, url } = context();
      const auth = { token: adminToken };
      const ref = refIn('history');
      await createStack(wire, adminToken, ref);
      await runUpdate(wire, adminToken, ref, 'update', { dryRun: false, checkpoints: [deployment(url, ref, 1)] });
      const cancelled = await createAndStart(wire, adminToken, ref, 'update', { dryRun: false });
      ok(await wire.call('POST', `${stackPath(ref)}/update/${cancelled.updateId}/cancel`, { auth }));
      await runUpdate(wire, adminToken, ref, 'update', { dryRun: false, checkpoints: [deployment(url, ref, 2)], status: 'failed' });
      await runUpdate(wire, adminToken, ref, 'update', { dryRun: false, checkpoints: [deployment(url, ref, 3)] });

      const all = ok(await wire.call('GET', `${stackPath(ref)}/updates`, { auth })).updates;
      const page2 = ok(await wire.call('GET', `${stackPath(ref)}/updates?pageSize=2&page=2`, { auth })).updates;

      expect(all.map((u: { result: string }) => u.result)).toEqual(['succeeded', 'failed', 'failed', 'succeeded']);
      expect(all.map((u: { version: number }) => u.version)).toEqual([...all.map((u: { version: number }) => u.version)].sort((a, b) => b - a));
      expect(page2).toEqual(all.slice(2, 4));
    });
  });

  describe('secrets', () => {
    it('encrypt/decrypt and batch round trips, keyed by the ciphertexts as sent', async () => {
      const { wire, adminToken } = context();
      const auth = { token: adminToken };
      const ref = refIn('secrets');
      await createStack(wire, adminToken, ref);
      const plaintexts = ['"hunter2"', 'ünïcödé', '', 'x'.repeat(3000)].map((p) => Buffer.from(p).toString('base64'));

      const single = ok(await wire.call('POST', `${stackPath(ref)}/encrypt`, { auth, body: { plaintext: plaintexts[0] } }));
      const singleBack = ok(await wire.call('POST', `${stackPath(ref)}/decrypt`, { auth, body: { ciphertext: single.ciphertext } }));
      const batch = ok(await wire.call('POST', `${stackPath(ref)}/batch-encrypt`, { auth, body: { plaintexts } }));
      const batchBack = ok(await wire.call('POST', `${stackPath(ref)}/batch-decrypt`, { auth, body: { ciphertexts: [...batch.ciphertexts, single.ciphertext] } }));

      expect(singleBack.plaintext).toBe(plaintexts[0]);
      expect(batch.ciphertexts).toHaveLength(plaintexts.length);
      for (const ciphertext of batch.ciphertexts) expect(ciphertext).toMatch(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
      expect(batchBack.plaintexts).toEqual(
        Object.fromEntries([...batch.ciphertexts.map((c: string, i: number) => [c, plaintexts[i]]), [single.ciphertext, plaintexts[0]]]),
      );
      ok(await wire.call('POST', `${stackPath(ref)}/decrypt/log-decryption`, { auth, body: { secretName: 'dbPassword' } }));
      ok(await wire.call('POST', `${stackPath(ref)}/decrypt/log-batch-decryption`, { auth, body: { commandName: 'pulumi stack export' } }));
      failed(await wire.call('POST', `${stackPath(ref)}/decrypt`, { auth, body: { ciphertext: 'not base64!' } }), 400);
    });

    it('refuses another stack\'s ciphertext with 400', async () => {
      const { wire, adminToken } = context();
      const auth = { token: adminToken };
      const a = refIn('sec-a');
      const b = refIn('sec-b');
      await createStack(wire, adminToken, a);
      await createStack(wire, adminToken, b);
      const { ciphertext } = ok(await wire.call('POST', `${stackPath(a)}/encrypt`, { auth, body: { plaintext: 'aGk=' } }));

      failed(await wire.call('POST', `${stackPath(b)}/batch-decrypt`, { auth, body: { ciphertexts: [ciphertext] } }), 400);
    });
  });

  describe('incremental saves', () => {
    it('verbatim then delta checkpoints on the exact bytes, idempotent by sequence number', async () => {
      const { wire, adminToken, url } = context();
      const auth = { token: adminToken };
      const ref = refIn('delta');
      await createStack(wire, adminToken, ref);
      const { updateId, leaseToken } = await createAndStart(wire, adminToken, ref, 'update', { dryRun: false });
      const lease = { updateToken: leaseToken };
      const update = `${stackPath(ref)}/update/${updateId}`;
      // The spanned format as the Go CLI writes it: Go escapes <, > and & and keeps non-ASCII as UTF-8.
      const doc1 = Buffer.from(
        `{"version":3,"deployment":{"manifest":${JSON.stringify(manifest())},"secrets_providers":${JSON.stringify(serviceSecrets(url, ref))},` +
          `"metadata":{},"resources":[{"urn":"${urn(ref, 'pulumi:pulumi:Stack', 'root')}","custom":false,"type":"pulumi:pulumi:Stack",` +
          `"outputs":{"html":"\\u003cb\\u003ecafé\\u003c/b\\u003e","n":1.50}}]}}`,
        'utf8',
      );
      const verbatim = (doc: Buffer, sequenceNumber: number) =>
        Buffer.concat([Buffer.from('{"version":3,"untypedDeployment":'), doc, Buffer.from(`,"sequenceNumber":${sequenceNumber}}`)]);
      const edit = (doc: Buffer, from: string, to: string) => {
        const start = doc.indexOf(from);
        const end = start + Buffer.byteLength(from);
        const next = Buffer.concat([doc.subarray(0, start), Buffer.from(to), doc.subarray(end)]);
        const span = { uri: '', start: { line: 1, column: 0, offset: start }, end: { line: 1, column: 0, offset: end } };
        return { next, delta: [{ Span: span, NewText: to }] };
      };
      const deltaBody = (sequenceNumber: number, hash: string, delta: unknown) =>
        Buffer.from(JSON.stringify({ version: 3, checkpointHash: hash, sequenceNumber, deploymentDelta: delta }));

      ok(await wire.call('PATCH', `${update}/checkpointverbatim`, { auth: lease, body: verbatim(doc1, 1) }));
      const { next: doc2, delta: delta2 } = edit(doc1, '"n":1.50', '"n":2.50,"extra":"ñ"');
      const sha2 = createHash('sha256').update(doc2).digest('hex');
      ok(await wire.call('PATCH', `${update}/checkpointdelta`, { auth: lease, body: deltaBody(2, sha2, delta2) }));
      // A retry of an applied delta is acknowledged without being applied twice.
      ok(await wire.call('PATCH', `${update}/checkpointdelta`, { auth: lease, body: deltaBody(2, sha2, delta2) }));
      const { next: doc3, delta: delta3 } = edit(doc2, 'café', 'cafés');
      const mismatch = await wire.call('PATCH', `${update}/checkpointdelta`, { auth: lease, body: deltaBody(3, '0'.repeat(64), delta3) });
      expect(mismatch.status).toBeGreaterThanOrEqual(400);
      expect(mismatch.status).toBeLessThan(500);
      // The CLI falls back to a verbatim upload with the same sequence number.
      ok(await wire.call('PATCH', `${update}/checkpointverbatim`, { auth: lease, body: verbatim(doc3, 3) }));
      ok(await wire.call('POST', `${update}/complete`, { auth: lease, body: { status: 'succeeded' } }));

      const exported = ok(await wire.call('GET', `${stackPath(ref)}/export`, { auth }));
      expect(exported).toEqual(JSON.parse(doc3.toString('utf8')));
      expect(exported.deployment.resources[0].outputs).toEqual({ html: '<b>cafés</b>', n: 2.5, extra: 'ñ' });
    });

    it('journal entries: journalVersion 1, batches replayed at complete, export returns the replayed state', async () => {
      const { wire, adminToken, url } = context();
      const auth = { token: adminToken };
      const ref = refIn('journal');
      await createStack(wire, adminToken, ref);
      const { updateId, leaseToken, journalVersion } = await createAndStart(wire, adminToken, ref, 'update', { dryRun: false, journalVersion: 1 });
      expect(journalVersion).toBe(1);
      const lease = { updateToken: leaseToken };
      const update = `${stackPath(ref)}/update/${updateId}`;
      const [root, provider, bucket] = resources(ref, 1);
      const rootWithOutputs = { ...root, outputs: { bucketArn: 'arn:aws:s3:::bucket-0' } };
      let sequenceID = 0;
      const entry = (kind: number, operationID: number, extra: Record<string, unknown> = {}) => ({
        version: 1, kind, sequenceID: ++sequenceID, operationID, removeOld: null, removeNew: null, ...extra,
      });
      const batch1 = [
        entry(6, 0, { secretsProvider: serviceSecrets(url, ref) }),
        entry(0, 1, { operation: { resource: root, type: 'creating' } }),
        entry(1, 1, { state: root }),
        entry(0, 2, { operation: { resource: provider, type: 'creating' } }),
        entry(1, 2, { state: provider }),
      ];
      const batch2 = [
        entry(0, 3, { operation: { resource: bucket, type: 'creating' } }),
        entry(1, 3, { state: bucket }),
        entry(4, 4, { state: rootWithOutputs, removeNew: 1 }),
      ];

      ok(await wire.call('PATCH', `${update}/journalentries`, { auth: lease, body: { entries: batch1 } }));
      ok(await wire.call('PATCH', `${update}/journalentries`, { auth: lease, body: { entries: batch1 } }));
      ok(await wire.call('PATCH', `${update}/journalentries`, { auth: lease, body: { entries: batch2 } }));
      ok(await wire.call('POST', `${update}/events/batch`, { auth: lease, body: { events: engineEvents({ create: 3 }, false) } }));
      ok(await wire.call('POST', `${update}/complete`, { auth: lease, body: { status: 'succeeded' } }));

      const exported = ok(await wire.call('GET', `${stackPath(ref)}/export`, { auth }));
      expect(exported.version).toBe(3);
      expect(exported.deployment.secrets_providers).toEqual(serviceSecrets(url, ref));
      expect(exported.deployment.resources).toEqual([rootWithOutputs, provider, bucket]);
      expect(exported.deployment.pending_operations ?? []).toEqual([]);
      expect(ok(await wire.call('GET', `${stackPath(ref)}/updates/latest`, { auth })).info).toMatchObject({ result: 'succeeded', resourceCount: 3 });
    });
  });

  describe('wire rules', () => {
    it('accepts an empty body with a JSON content type on GET, DELETE and cancel', async () => {
      const { wire, adminToken } = context();
      const auth = { token: adminToken };
      const ref = refIn('emptybody');
      await createStack(wire, adminToken, ref);
      const running = await createAndStart(wire, adminToken, ref, 'update', { dryRun: false });

      ok(await wire.call('POST', `${stackPath(ref)}/update/${running.updateId}/cancel`, { auth, headers: { 'content-type': 'application/json' } }));
      ok(await wire.call('DELETE', `${stackPath(ref)}?force=true`, { auth, headers: { 'content-type': 'application/json' } }));
    });

    it('gzips large responses for the CLI and refuses malformed bodies with 400', async () => {
      const { wire, adminToken, url } = context();
      const auth = { token: adminToken };
      const ref = refIn('gzip');
      await createStack(wire, adminToken, ref);
      await runUpdate(wire, adminToken, ref, 'update', { dryRun: false, checkpoints: [deployment(url, ref, 40)] });

      const exported = await wire.call('GET', `${stackPath(ref)}/export`, { auth });
      const plain = await wire.call('GET', `${stackPath(ref)}/export`, { auth, headers: { 'accept-encoding': 'identity' } });

      expect(exported.headers['content-encoding']).toBe('gzip');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(exported.json).toEqual(plain.json);
      expect(failed(await wire.call('POST', `${stackPath(ref)}/encrypt`, { auth, body: Buffer.from('{"plaintext":') }), 400)).toMatch(/not valid JSON/);
      expect(failed(await wire.call('POST', `${stackPath(ref)}/update`, { auth, body: { options: { dryRun: 'yes' } } }), 400)).toContain("'options.dryRun'");
    });

    it('refuses oversized bodies and gzip bombs with 413 saying what to do, and broken checkpoints with 400', async () => {
      const { wire, adminToken } = context();
      const auth = { token: adminToken };
      const ref = refIn('caps');
      await createStack(wire, adminToken, ref);
      const running = await createAndStart(wire, adminToken, ref, 'update', { dryRun: false });
      const update = `${stackPath(ref)}/update/${running.updateId}`;
      const noise = Buffer.from(Array.from({ length: 5_000_000 }, (_, i) => (i * 7919) % 251));

      const oversize = await wire.call('POST', `${stackPath(ref)}/import`, { auth, body: noise, gzip: false });
      const bomb = gzipSync(Buffer.concat([Buffer.from('{"entries":['), Buffer.alloc(60 * 1024 * 1024, 0x20), Buffer.from(']}')]));
      const inflated = await wire.call('PATCH', `${update}/journalentries`, {
        auth: { updateToken: running.leaseToken },
        body: bomb,
        gzip: false,
        headers: { 'content-encoding': 'gzip' },
      });

      expect(failed(oversize, 413)).toContain('PULUMI_OPTIMIZED_CHECKPOINT_PATCH');
      expect(failed(inflated, 413)).toContain('inflates to more than');
      const lease = { updateToken: running.leaseToken };
      expect(failed(await wire.call('PATCH', `${update}/checkpoint`, { auth: lease, body: { isInvalid: false, version: 9, deployment: {} } }), 400)).toMatch(/version/);
      failed(await wire.call('PATCH', `${update}/checkpoint`, { auth: lease, body: { isInvalid: false, version: 3 } }), 400);
      failed(await wire.call('PATCH', `${update}/checkpoint`, { auth: lease, body: Buffer.from('{"version":3,"deployment":{') }), 400);
    });
  });

  describe('administration', () => {
    it('users, organizations, members and tokens', async () => {
      const { wire, adminToken } = context();
      const auth = { token: adminToken };
      const suffix = uniqueProject('x').slice(2);
      const login = `carol-${suffix}`;
      const org = `team-${suffix}`;

      ok(await wire.call('POST', '/api/users', { auth, body: { login, name: 'Carol', email: 'carol@example.com' } }), 201);
      ok(await wire.call('POST', '/api/orgs', { auth, body: { name: org } }), 201);
      ok(await wire.call('POST', `/api/orgs/${org}/members`, { auth, body: { login, role: 'member' } }), 201);
      const created = ok(await wire.call('POST', '/api/user/tokens', { auth, body: { description: 'ci', login, expiresInDays: 30 } }), 201);
      expect(created).toEqual({ id: expect.stringMatching(/\S/), tokenValue: expect.stringMatching(/\S/) });
      const carol = { token: created.tokenValue };

      const user = ok(await wire.call('GET', '/api/user', { auth: carol }));
      expect(user).toMatchObject({ githubLogin: login, siteAdmin: false });
      expect(user.organizations).toEqual([expect.objectContaining({ githubLogin: org })]);
      expect(ok(await wire.call('GET', '/api/orgs', { auth: carol })).organizations).toEqual(
        expect.arrayContaining([{ name: org, role: 'member' }]),
      );
      const listed = ok(await wire.call('GET', `/api/user/tokens?login=${login}`, { auth })).tokens;
      expect(listed).toEqual([expect.objectContaining({ id: created.id, description: 'ci', login, createdAt: expect.any(Number), expiresAt: expect.any(Number) })]);
      expect(JSON.stringify(listed)).not.toContain(created.tokenValue);
      failed(await wire.call('POST', '/api/users', { auth: carol, body: { login: `dave-${suffix}` } }), 403);
      failed(await wire.call('POST', '/api/users', { auth, body: { name: 'no login' } }), 400);

      ok(await wire.call('DELETE', `/api/user/tokens/${created.id}?login=${login}`, { auth }));
      failed(await wire.call('GET', '/api/user', { auth: carol }), 401);
    });
  });
}
