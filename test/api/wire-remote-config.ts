/**
 * `pulumi stack init --remote-config` on the wire (pkg/cmd/pulumi/stack/io.go `CreateStack`, httpstate client
 * `CreateStack` and `UpdateStackConfig`): the create-stack request carries `config: {environment: "<project>/<stack>"}`
 * (apitype.StackConfig); the service creates that environment (or links an existing one) and answers the link as
 * `config` on `GET` of the stack, which is how the CLI knows the configuration lives there.
 */
import { describe, expect, it } from 'vitest';
import { failed, ok, type PulumiWire } from './pulumi-wire.js';
import { stackPath, uniqueProject, type Ref } from './wire-fixtures.js';
import type { WireContext } from './wire-scenarios.js';

/** The tags `pulumi stack init` sends for a Node.js project. */
const tags = (project: string) => ({ 'pulumi:project': project, 'pulumi:runtime': 'nodejs' });

export function defineRemoteConfigScenarios(context: () => WireContext): void {
  const call = (wire: PulumiWire, token: string, method: string, path: string, body?: unknown) =>
    wire.call(method, path, { auth: { token }, ...(body === undefined ? {} : { body }) });

  describe('remote stack configuration (`stack init --remote-config`)', () => {
    it('creates the stack with its environment, answers the link, keeps it through a rename and leaves the environment on delete', async () => {
      const { wire, adminToken } = context();
      const ref: Ref = { org: 'admin', project: uniqueProject('remotecfg'), stack: 'dev' };
      const environment = `${ref.project}/dev`;

      // pulumi stack init dev --remote-config
      const created = ok(
        await call(wire, adminToken, 'POST', `/api/stacks/${ref.org}/${ref.project}`, { stackName: 'dev', tags: tags(ref.project), config: { environment } }),
      );
      expect(created).toMatchObject({ stackName: 'dev', config: { environment }, messages: [] });
      const stack = ok(await call(wire, adminToken, 'GET', stackPath(ref)));
      expect(stack.config).toEqual({ environment });

      // The environment exists, empty, at its first revision; the stack's values go into it with `env set`.
      const env = `/api/esc/environments/${ref.org}/${environment}`;
      const definition = await call(wire, adminToken, 'GET', env);
      expect([definition.status, definition.headers['pulumi-esc-revision'], definition.text]).toEqual([200, '1', '']);

      // UpdateStackConfig (`PUT …/config`) links another environment; GET answers it.
      ok(await call(wire, adminToken, 'PUT', `${stackPath(ref)}/config`, { environment: `${ref.project}/shared` }));
      expect(ok(await call(wire, adminToken, 'GET', stackPath(ref))).config).toEqual({ environment: `${ref.project}/shared` });
      failed(await call(wire, adminToken, 'PUT', `${stackPath(ref)}/config`, { environment: 'no-project' }), 400);
      failed(await call(wire, adminToken, 'PUT', `${stackPath(ref)}/config`, {}), 400);
      ok(await call(wire, adminToken, 'PUT', `${stackPath(ref)}/config`, { environment }));

      // stack rename: the link names an environment, which keeps its name.
      ok(await call(wire, adminToken, 'POST', `${stackPath(ref)}/rename`, { newName: 'dev2' }));
      const renamed: Ref = { ...ref, stack: 'dev2' };
      expect(ok(await call(wire, adminToken, 'GET', stackPath(renamed))).config).toEqual({ environment });

      // stack rm: the environment (with its revisions) stays, as every other environment does.
      ok(await call(wire, adminToken, 'DELETE', `${stackPath(renamed)}?force=true`), 200);
      failed(await call(wire, adminToken, 'GET', stackPath(renamed)), 404);
      expect((await call(wire, adminToken, 'GET', env)).status).toBe(200);
    });

    it('links an environment that already exists as it is', async () => {
      const { wire, adminToken } = context();
      const ref: Ref = { org: 'admin', project: uniqueProject('remotecfg'), stack: 'prod' };
      const env = `/api/esc/environments/${ref.org}/${ref.project}/prod`;
      ok(await call(wire, adminToken, 'POST', `/api/esc/environments/${ref.org}`, { project: ref.project, name: 'prod' }));
      const yaml = 'values:\n  pulumiConfig:\n    size: large\n';
      ok(await wire.call('PATCH', env, { auth: { token: adminToken }, body: Buffer.from(yaml, 'utf8'), gzip: false }));

      ok(await call(wire, adminToken, 'POST', `/api/stacks/${ref.org}/${ref.project}`, { stackName: 'prod', tags: tags(ref.project), config: { environment: `${ref.project}/prod` } }));

      const definition = await call(wire, adminToken, 'GET', env);
      expect([definition.headers['pulumi-esc-revision'], definition.text]).toEqual(['2', yaml]);
      expect(ok(await call(wire, adminToken, 'GET', stackPath(ref))).config).toEqual({ environment: `${ref.project}/prod` });
    });

    it('refuses a malformed config with 400 and creates nothing', async () => {
      const { wire, adminToken } = context();
      const project = uniqueProject('remotecfg');
      const create = (config: unknown) => call(wire, adminToken, 'POST', `/api/stacks/admin/${project}`, { stackName: 'bad', tags: tags(project), config });

      expect(failed(await create({ environment: 'no-project' }), 400)).toMatch(/<project>\/<environment>/);
      expect(failed(await create({ environment: `${project}/open` }), 400)).toMatch(/environment name/);
      expect(failed(await create({ environment: `${project}/bad`, secretsProvider: 'passphrase', encryptionSalt: 'v1:abc' }), 400)).toMatch(/own Stackyard key/);
      failed(await create({}), 400);
      failed(await create('text'), 400);

      failed(await call(wire, adminToken, 'GET', stackPath({ org: 'admin', project, stack: 'bad' })), 404);
      failed(await call(wire, adminToken, 'GET', `/api/esc/environments/admin/${project}/bad`), 404);
    });
  });
}
