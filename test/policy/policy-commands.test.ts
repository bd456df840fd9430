/**
 * `stackyard policy …` on the wire: each command's requests (routes, bodies, headers) as pulumi/pulumi's client.go
 * sends them, against a loopback server answering Pulumi's apitype bodies, and what the command prints.
 */
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CliSandbox, REPO, removeSandboxes } from '../cli/cli-harness.js';
import { PolicyLoopback } from './policy-loopback.js';

let service: PolicyLoopback;
let sandbox: CliSandbox;
let dir: string;
const run = (args: string[], cwd = dir) => sandbox.run(cwd, args, { env: { STACKYARD_BACKEND_URL: service.url, STACKYARD_ACCESS_TOKEN: 'tok-1' } });

beforeAll(async () => {
  sandbox = new CliSandbox();
  dir = join(sandbox.root, 'work');
  mkdirSync(dir);
});
afterAll(removeSandboxes);
beforeEach(async () => {
  await service?.stop();
  service = await new PolicyLoopback().start();
});

describe('policy ls and policy group ls', () => {
  it('lists the packs of the named organization with their version tags', async () => {
    service.on('GET /api/orgs/acme/policypacks', { json: { policyPacks: [{ name: 'aws-rules', displayName: 'AWS', versions: [1, 2], versionTags: ['1.0.0', '1.1.0'] }] } });

    const table = await run(['policy', 'ls', 'acme']);
    const json = await run(['policy', 'ls', 'acme', '--json']);

    expect(table.stdout).toBe('NAME       VERSIONS\naws-rules  1.0.0, 1.1.0\n');
    expect(JSON.parse(json.stdout)).toEqual([{ name: 'aws-rules', versions: ['1.0.0', '1.1.0'] }]);
    expect(service.calls()).toEqual(['GET /api/orgs/acme/policypacks', 'GET /api/orgs/acme/policypacks']);
    expect(service.seen[0]!.authorization).toBe('token tok-1');
  });

  it('lists the groups of the default organization (the user\'s login when the service has none)', async () => {
    service.on('GET /api/orgs/alice/policygroups', {
      json: { policyGroups: [{ name: 'default-policy-group', isOrgDefault: true, numStacks: 3, numEnabledPolicyPacks: 1, entityType: 'stacks', mode: 'preventative' }] },
    });

    const table = await run(['policy', 'group', 'ls']);
    const json = await run(['policy', 'group', 'ls', '--output', 'json']);

    expect(table.stdout).toBe('NAME                  DEFAULT  ENABLED POLICY PACKS  STACKS\ndefault-policy-group  Y        1                     3\n');
    expect(JSON.parse(json.stdout)).toEqual([{ name: 'default-policy-group', default: true, numPolicyPacks: 1, numStacks: 3 }]);
  });
});

describe('policy enable, disable and rm', () => {
  it('enable sends addPolicyPack to the group (the default one unless --policy-group), with the config file', async () => {
    service.on('PATCH /api/orgs/acme/policygroups/default-policy-group', { status: 204 }).on('PATCH /api/orgs/acme/policygroups/prod', { status: 204 });
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ all: 'advisory', 'bucket-tags': { enforcementLevel: 'mandatory', tags: ['team'] } }));

    const latest = await run(['policy', 'enable', 'acme/aws-rules', 'latest']);
    const pinned = await run(['policy', 'enable', 'acme/aws-rules', '1.1.0', '--policy-group', 'prod', '--config', config]);

    expect([latest.status, pinned.status]).toEqual([0, 0]);
    expect(service.seen.filter((r) => r.method === 'PATCH').map((r) => [r.path, r.body])).toEqual([
      ['/api/orgs/acme/policygroups/default-policy-group', { addPolicyPack: { name: 'aws-rules' } }],
      ['/api/orgs/acme/policygroups/prod', { addPolicyPack: { name: 'aws-rules', versionTag: '1.1.0', config: { all: { enforcementLevel: 'advisory' }, 'bucket-tags': { tags: ['team'], enforcementLevel: 'mandatory' } } } }],
    ]);
  });

  it('disable sends removePolicyPack, with the version only when --version is given', async () => {
    service.on('PATCH /api/orgs/acme/policygroups/default-policy-group', { status: 204 });

    await run(['policy', 'disable', 'acme/aws-rules']);
    await run(['policy', 'disable', 'acme/aws-rules', '--version', '1.0.0']);

    expect(service.seen.map((r) => r.body)).toEqual([{ removePolicyPack: { name: 'aws-rules' } }, { removePolicyPack: { name: 'aws-rules', versionTag: '1.0.0' } }]);
  });

  it('rm deletes one version or, with all, the pack; without --yes and a terminal it deletes nothing', async () => {
    service.on('DELETE /api/orgs/acme/policypacks/aws-rules', { status: 204 }).on('DELETE /api/orgs/acme/policypacks/aws-rules/versions/1.0.0', { status: 204 });

    const refused = await run(['policy', 'rm', 'acme/aws-rules', 'all']);
    await run(['policy', 'rm', 'acme/aws-rules', '1.0.0', '--yes']);
    await run(['policy', 'rm', 'acme/aws-rules', 'all', '--yes']);

    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('--yes must be passed in to proceed when running in non-interactive mode');
    expect(service.calls()).toEqual(['DELETE /api/orgs/acme/policypacks/aws-rules/versions/1.0.0', 'DELETE /api/orgs/acme/policypacks/aws-rules']);
  });

  it('a pack name not of the form <org-name>/<policy-pack-name> is refused before any request', async () => {
    const result = await run(['policy', 'enable', 'aws-rules', 'latest']);

    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("could not parse policy pack name 'aws-rules'; must be of the form <org-name>/<policy-pack-name>");
    expect(service.calls()).toEqual([]);
  });

  it('a refusal of the service is the command\'s error', async () => {
    service.on('PATCH /api/orgs/acme/policygroups/default-policy-group', { status: 403, json: { code: 403, message: 'only organization admins may change policy groups' } });

    const result = await run(['policy', 'enable', 'acme/aws-rules', 'latest']);

    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('only organization admins may change policy groups');
  });
});

describe('policy validate-config', () => {
  const schema = { configSchema: { 'bucket-tags': { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } }, required: ['tags'] } } };

  it('checks the file against the version\'s schema', async () => {
    service.on('GET /api/orgs/acme/policypacks/aws-rules/versions/1.1.0/schema', { json: schema });
    const good = join(dir, 'good.json');
    const bad = join(dir, 'bad.json');
    writeFileSync(good, JSON.stringify({ 'bucket-tags': { tags: ['team'] } }));
    writeFileSync(bad, JSON.stringify({ 'bucket-tags': { tags: [1] } }));

    const ok = await run(['policy', 'validate-config', 'acme/aws-rules', '1.1.0', '--config', good]);
    const invalid = await run(['policy', 'validate-config', 'acme/aws-rules', '1.1.0', '--config', bad]);
    const missing = await run(['policy', 'validate-config', 'acme/aws-rules', '1.1.0', '--config', join(dir, 'none.json')]);

    expect(ok.stdout).toBe('Policy Pack configuration is valid.\n');
    expect(invalid.status).not.toBe(0);
    expect(invalid.stderr).toContain('policy pack configuration is invalid: Invalid type. Expected: string, given: integer');
    expect(missing.stderr).toContain('could not read policy pack config file');
  });
});

describe('policy publish', () => {
  it('starts the pack for its metadata, npm-packs it, uploads to the location answered and completes the version', async () => {
    const packDir = join(sandbox.root, 'pack');
    cpSync(join(REPO, 'test/fixtures/policy/packs/publishable'), packDir, { recursive: true });
    // the pack's dependencies are the repository's modules (npm pack leaves node_modules out)
    symlinkSync(join(REPO, 'node_modules'), join(packDir, 'node_modules'), 'dir');
    const storage = await new PolicyLoopback().start();
    storage.on('PUT /bucket/pack.tgz', { status: 200 });
    service.on('POST /api/orgs/acme/policypacks', { json: { version: 1, uploadURI: `${storage.url}/bucket/pack.tgz`, requiredHeaders: { 'x-amz-meta-pack': 'publishable' } } });
    service.on('POST /api/orgs/acme/policypacks/publishable/versions/0.0.1/complete', { status: 204 });

    const result = await run(['policy', 'publish', 'acme'], packDir);
    await storage.stop();

    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      'Obtaining policy metadata from policy plugin\nCompressing policy pack\nUploading policy pack to Pulumi service\nPublishing "publishable" - version 0.0.1 to "acme"\n',
    );
    expect(service.calls()).toEqual(['POST /api/orgs/acme/policypacks', 'POST /api/orgs/acme/policypacks/publishable/versions/0.0.1/complete']);
    const created = service.seen.find((r) => r.method === 'POST')!.body as { name: string; versionTag: string; runtime: string; policies: { name: string; enforcementLevel: string }[] };
    expect([created.name, created.versionTag, created.runtime]).toEqual(['publishable', '0.0.1', 'nodejs']);
    expect(created.policies.map((p) => [p.name, p.enforcementLevel])).toEqual([['at-most-ten-resources', 'advisory'], ['no-forbidden-names', 'advisory']]);
    const [upload] = storage.seen;
    // a foreign host gets the required headers and never the API token
    expect(upload!.authorization).toBeUndefined();
    expect(upload!.raw.length).toBeGreaterThan(0);
    expect(gunzipSync(upload!.raw).toString('latin1')).toContain('package/PulumiPolicy.yaml');
  }, 60_000);
});

describe('on the local backend', () => {
  it('refuses, saying where packs are published', async () => {
    const local = await sandbox.run(dir, ['policy', 'ls', 'acme'], { env: { STACKYARD_BACKEND_URL: `file://${join(sandbox.root, 'state')}` } });

    expect(local.status).not.toBe(0);
    expect(local.stderr).toContain('the local backend does not support resource policy');
  });
});

describe('policy new', () => {
  it('writes the built-in javascript template into an empty --dir, and refuses a folder that is not empty', async () => {
    const target = join(sandbox.root, 'new-pack');

    const made = await run(['policy', 'new', 'javascript', '--dir', target, '--generate-only']);
    const again = await run(['policy', 'new', 'javascript', '--dir', target, '--generate-only']);

    expect(made.status, made.stderr).toBe(0);
    expect(made.stdout).toContain('Created Policy Pack!');
    expect(JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')).name).toBe('new-pack');
    expect(readFileSync(join(target, 'index.js'), 'utf8')).toContain("new PolicyPack('new-pack'");
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain('is not empty');
  });
});
