/**
 * Packs a service requires (`requiredPolicies` of the create-update answer): downloaded once from `packLocation`
 * with the caller's token, installed under `$PULUMI_HOME/policies/<org>/pulumi-analyzer-<name>-v<version>` with
 * their dependencies, and run with the group's config before any `--policy-pack`, as Pulumi's engine runs them.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../cli/api-client/api-client.js';
import { HttpBackend } from '../../cli/backend/http-backend.js';
import { httpPolicyBackend } from '../../cli/backend/policy-http.js';
import type { RequiredPolicy } from '../../cli/policy/policy-types.js';
import { requiredPackPath, requiredPackSpecs } from '../../cli/policy/required-packs.js';
import type { OperationSession } from '../../cli/engine/operation.js';
import { eventsOf, pack, POLICY_PULUMI_HOME, PolicyStack } from '../engine/conformance/policy-harness.js';
import { publishableTarball } from './pack-tarball.js';
import { PolicyLoopback } from './policy-loopback.js';

const PACK_PATH = '/api/orgs/acme/policypacks/publishable/versions/0.0.1/download';
let service: PolicyLoopback;
let policies: ReturnType<typeof httpPolicyBackend>;
const savedOffline = process.env.npm_config_offline;

beforeAll(async () => {
  // any registry request of the pack's npm install fails at once instead of reaching the internet
  process.env.npm_config_offline = 'true';
  const tarball = await publishableTarball();
  service = await new PolicyLoopback().start();
  service.on(`GET ${PACK_PATH}`, { bytes: tarball });
  service.on('GET /api/orgs/acme/policypacks/broken/versions/1/download', { status: 404, json: { code: 404, message: 'policy pack version not found' } });
  policies = httpPolicyBackend(new ApiClient(service.url, 'tok-required', { sleep: async () => undefined }));
}, 60_000);
afterAll(async () => {
  await service.stop();
  if (savedOffline === undefined) delete process.env.npm_config_offline;
  else process.env.npm_config_offline = savedOffline;
});

const required = (config?: Record<string, unknown>, name = 'publishable', location = PACK_PATH): RequiredPolicy => ({
  name,
  version: 1,
  versionTag: name === 'publishable' ? '0.0.1' : '1',
  displayName: name,
  packLocation: `${service.url}${location}`,
  ...(config ? { config } : {}),
});

/** A session part offering the packs as the service backend's session does. */
function requiring(...packs: RequiredPolicy[]): Partial<OperationSession> {
  return { requiredPolicyPacks: (o) => requiredPackSpecs('acme', packs, { ...o, download: (at) => policies.download(at) }) };
}

describe('required policy packs', () => {
  it('downloads the pack once with the caller\'s token, installs it in Pulumi\'s layout, and runs it with the group\'s config', async () => {
    const stack = new PolicyStack('validate_resource');
    const strict = required({ 'no-forbidden-names': { prefix: 'hel', enforcementLevel: 'mandatory' } });

    const refused = await stack.run('up', 2, {}, requiring(strict));
    const allowed = await stack.run('up', 2, {}, requiring(required()));

    const downloads = service.seen.filter((r) => r.path === PACK_PATH);
    expect(downloads.map((r) => r.authorization)).toEqual(['token tok-required']);
    const dir = requiredPackPath({ PULUMI_HOME: POLICY_PULUMI_HOME }, 'acme', strict);
    expect(dir).toBe(join(POLICY_PULUMI_HOME, 'policies/acme/pulumi-analyzer-publishable-v0.0.1'));
    expect(existsSync(join(dir, 'PulumiPolicy.yaml')) && existsSync(join(dir, 'node_modules/@pulumi/policy'))).toBe(true);
    // nothing of the staging folder is left beside it
    expect(readdirSync(join(POLICY_PULUMI_HOME, 'policies/acme'))).toEqual(['pulumi-analyzer-publishable-v0.0.1']);

    expect(refused.code).toBe(1);
    expect(refused.created).toEqual([]);
    expect(refused.out).toContain('❌ publishable@v0.0.1\n');
    expect(refused.out).not.toContain('(local:');
    expect(refused.out).toContain('- [mandatory]  no-forbidden-names  (pulumi-nodejs:dynamic:Resource: hello)');
    expect(refused.out).toContain('hello starts with hel');
    expect(allowed.code).toBe(0);
    expect(allowed.out).toContain('✅ publishable@v0.0.1\n');
    const [summary] = eventsOf<{ PolicyPacks: Record<string, string> }>(allowed, 'summaryEvent');
    expect(summary!.PolicyPacks).toEqual({ publishable: '0.0.1' });
  }, 180_000);

  it('runs before a --policy-pack, and both are reported', async () => {
    const stack = new PolicyStack('validate_resource');

    const run = await stack.run('preview', 2, { policyPacks: [{ path: pack('validate_resource') }] }, requiring(required()));

    const [summary] = eventsOf<{ PolicyPacks: Record<string, string> }>(run, 'summaryEvent');
    expect(Object.keys(summary!.PolicyPacks)).toEqual(['publishable', `validate-resource-test-policy|local|${pack('validate_resource')}`]);
  }, 180_000);

  it('a pack that cannot be downloaded fails the update before the program runs, naming the pack', async () => {
    const stack = new PolicyStack('validate_resource');

    const run = await stack.run('up', 2, { skipPreview: true }, requiring(required(undefined, 'broken', '/api/orgs/acme/policypacks/broken/versions/1/download')));

    expect(run.code).toBe(1);
    expect(run.out).toContain('error: failed to download policy pack broken@v1: policy pack version not found');
    expect(run.created).toEqual([]);
    expect(existsSync(join(POLICY_PULUMI_HOME, 'policies/acme/pulumi-analyzer-broken-v1'))).toBe(false);
  }, 120_000);
});

describe('the create-update answer', () => {
  it('carries requiredPolicies to the session as the service sent them; an answer without them requires nothing', async () => {
    const listed = { name: 'publishable', version: 3, versionTag: '0.0.1', displayName: 'Publishable', packLocation: `${service.url}${PACK_PATH}`, config: { all: { enforcementLevel: 'mandatory' } } };
    service.on('POST /api/stacks/acme/web/dev/update', { json: { updateID: 'u-1', requiredPolicies: [listed] } });
    service.on('POST /api/stacks/acme/web/dev/preview', { json: { updateID: 'u-2' } });
    const backend = new HttpBackend(new ApiClient(service.url, 'tok-required'));
    const request = { environment: {}, config: {}, program: { name: 'web', runtime: 'nodejs' } };

    const update = await backend.createUpdate({ org: 'acme', project: 'web', stack: 'dev' }, { ...request, kind: 'update', dryRun: false });
    const preview = await backend.createUpdate({ org: 'acme', project: 'web', stack: 'dev' }, { ...request, kind: 'preview', dryRun: true });

    expect(update).toEqual({ updateId: 'u-1', requiredPolicies: [listed] });
    expect(preview).toEqual({ updateId: 'u-2', requiredPolicies: [] });
  });
});
