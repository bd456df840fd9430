import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../functions/http/routes/index.js';
import {
  ENVIRONMENT_ACTIONS,
  ORG_ACTIONS,
  STACK_ACTIONS,
  type EnvironmentPermission,
  type StackPermission,
} from '../../shared/core/kernel/permissions.js';
import { startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';
import { npmPack, PUBLISHED_PACK_POLICIES } from '../support/policy-pack-tarball.js';
import { ORG, ROUTE_ACCESS, STACK, type Access } from './authz-route-access.js';
import { failed, ok, PulumiWire, type Auth } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { createAndStart, createStack, deployment, engineEvents, runUpdate, stackPath, type Ref } from './wire-fixtures.js';

/**
 * The authorization matrix: every route of the API × every kind of caller — an organization admin, members holding
 * read, write and admin on the stack (the organization's default is `none`), a viewer, a team token (its team holds
 * write), an organization token, an expired and a revoked token, a user of another organization, no credentials,
 * and on the update-token routes stale and foreign update tokens — on both storage modes. Each refused call must get
 * the status the permission table (shared/core/kernel/permissions.ts) gives, and none may change anything. Allowed
 * reads are made and must succeed; allowed writes are not made here (they would change the state the refusals are
 * checked against) and are exercised by the route suites and shared/core/access/access-service.test.ts.
 */


/** The callers of the matrix. `stack` is what each holds on acme/proj/dev; `role` its organization role. */
interface Caller {
  name: string;
  token: string;
  stack?: StackPermission;
  /** What each holds on the environments acme/proj/dev and acme/default/dev (members get `write` by default). */
  environment?: EnvironmentPermission;
  role?: 'admin' | 'member' | 'viewer';
  kind: 'personal' | 'team' | 'organization' | 'outsider';
}

const RANK = { read: 1, write: 2, admin: 3 } as const;
const ROLE_RANK = { viewer: 1, member: 2, admin: 3 } as const;
const ENVIRONMENT_RANK = { read: 1, open: 2, write: 3, admin: 4 } as const;

/** The status the permission table gives a caller on a route: 'allowed', or the refusal status. */
function expected(access: Access, caller: Caller): 'allowed' | number {
  if ('any' in access) return 'allowed';
  if ('public' in access) return 'allowed';
  if ('oidcExchange' in access || 'uploadTicket' in access || 'webhookSignature' in access) return 401;
  if ('siteAdmin' in access || 'runToken' in access) return 403;
  if ('personalTokens' in access) {
    // The matrix acts on alice's tokens (?login=alice): alice herself, or a site administrator.
    return caller.kind === 'personal' && caller.name === 'org admin alice' ? 'allowed' : 403;
  }
  if ('project' in access) return caller.kind === 'outsider' ? 404 : 'allowed';
  if ('stack' in access) {
    const needed = STACK_ACTIONS[access.stack];
    if (!caller.stack) return 404;
    return RANK[caller.stack] >= RANK[needed] ? 'allowed' : 403;
  }
  if ('environment' in access) {
    const needed = ENVIRONMENT_ACTIONS[access.environment];
    if (!caller.environment) return 404;
    return ENVIRONMENT_RANK[caller.environment] >= ENVIRONMENT_RANK[needed] ? 'allowed' : 403;
  }
  if ('org' in access) {
    if (caller.kind === 'outsider') return 404;
    if (caller.kind === 'team' || caller.kind === 'organization') {
      return access.org === 'create-stack' || access.org === 'list-stacks' || access.org === 'create-environment' || access.org === 'read-policies' ? 'allowed' : 403;
    }
    return ROLE_RANK[caller.role!] >= ROLE_RANK[ORG_ACTIONS[access.org]] ? 'allowed' : 403;
  }
  throw new Error('lease routes are checked separately');
}

/** The pack the policy routes act on: published by alice before the matrix runs. */
const PACK_REQUEST = { name: 'required-tags', displayName: 'Required tags', versionTag: '1.0.0', policies: PUBLISHED_PACK_POLICIES };

/** The hook the hook routes act on (org and stack scope alike); inactive, so nothing is ever sent to it. */
const HOOK = { name: 'watch', url: 'https://ci.example.com/stackyard', secret: 'hook-secret-value', active: false };

/** The issuer acme's OIDC trust policy names (never fetched: the matrix only sends unsigned tokens). */
const OIDC_ISSUER = 'https://oidc.example.com';

const dev: Ref = { org: 'acme', project: 'proj', stack: 'dev' };
const other: Ref = { org: 'acme', project: 'proj', stack: 'other' };

/** A valid body for each route, so that only the credentials are wrong. */
function bodyFor(url: string, method: string, path: string): unknown {
  const key = `${method} ${path}`;
  const suffix = path.split('/').pop();
  const bodies: Record<string, unknown> = {
    'POST /api/users': { login: 'mallory' },
    'POST /api/orgs': { name: 'evil-corp' },
    'POST /api/orgs/{orgName}/members': { login: 'bob', role: 'admin' },
    'POST /api/user/tokens': { description: 'stolen', login: 'alice' },
    'POST /api/stacks/{orgName}/{projectName}': { stackName: 'intruder' },
    [`PATCH ${ORG}/members/{userLogin}`]: { role: 'admin' },
    [`PATCH ${ORG}/settings`]: { defaultStackPermission: 'admin' },
    [`POST ${ORG}/teams`]: { name: 'intruders' },
    [`PATCH ${ORG}/teams/{teamName}`]: { memberAction: 'add', member: 'viewer' },
    [`POST ${ORG}/tokens`]: { description: 'stolen' },
    [`POST ${ORG}/teams/{teamName}/tokens`]: { description: 'stolen' },
    [`PATCH ${STACK}/permissions`]: { user: 'viewer', permission: 'admin' },
    [`POST ${STACK}/deployments/settings`]: { sourceContext: { git: { repoUrl: 'https://evil.example.com/repo.git' } } },
    [`POST ${STACK}/deployments/settings/encrypt`]: { secret: 'intruder' },
    [`POST ${STACK}/deployments`]: { operation: 'destroy' },
    [`POST ${STACK}/deployments/sources`]: { size: 100, sha256: 'ab'.repeat(32) },
    [`PUT ${STACK}/deployments/sources/{archiveId}`]: npmPack(),
    [`PUT ${STACK}/approvals`]: { required: 0 },
    [`PUT ${ORG}/approvals`]: { required: 0, stacks: 'proj/*' },
    [`POST ${STACK}/plans`]: { plan: { manifest: {}, resourcePlans: {}, stackyard: { stackVersion: 0 } }, programDigest: 'a'.repeat(64) },
    [`POST ${STACK}/plans/{planId}/approve`]: { comment: 'intruder' },
    [`POST ${STACK}/plans/{planId}/reject`]: { comment: 'intruder' },
    [`POST ${STACK}/deployments/schedules`]: { scheduleCron: '0 0 1 1 *', request: { operation: 'destroy' } },
    [`POST ${STACK}/deployments/schedules/{scheduleId}`]: { scheduleOnce: '2098-01-01T00:00:00Z', request: { operation: 'destroy' } },
    [`POST ${STACK}/deployments/drift/schedules`]: { scheduleCron: '0 0 1 1 *', autoRemediate: true },
    [`POST ${STACK}/deployments/drift/schedules/{scheduleId}`]: { scheduleCron: '0 0 2 1 *', autoRemediate: true },
    [`POST ${STACK}/deployments/ttl/schedules`]: { timestamp: '2098-01-01T00:00:00Z', deleteAfterDestroy: true },
    [`POST ${STACK}/deployments/ttl/schedules/{scheduleId}`]: { timestamp: '2098-01-01T00:00:00Z', deleteAfterDestroy: true },
    'POST /api/console/login-codes': { path: '/acme/proj/dev' },
    'POST /api/deployments/runner/{deploymentId}/logs': { lines: ['intruder'] },
    'POST /api/deployments/runner/{deploymentId}/finish': { status: 'succeeded' },
    'POST /api/deployments/runner/{deploymentId}/environments': { environments: ['app/dev'] },
    [`POST ${ORG}/policypacks`]: { ...PACK_REQUEST, versionTag: '6.6.6' },
    [`PUT ${ORG}/policypacks/{policyPackName}/versions/{versionTag}/upload`]: npmPack(),
    [`POST ${ORG}/policygroups`]: { name: 'intruders' },
    [`PATCH ${ORG}/policygroups/{policyGroup}`]: { addStack: { name: dev.stack, routingProject: dev.project } },
    [`POST ${ORG}/oidc/policies`]: { issuer: 'https://evil.example.com', claims: { sub: 'repo:evil/*' }, tokenKind: 'organization' },
    // The form `pulumi login --oidc-token <unsigned> --oidc-org acme --oidc-team ci` posts.
    'POST /api/oauth/token': Buffer.from(
      new URLSearchParams({
        audience: 'urn:pulumi:org:acme',
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        requested_token_type: 'urn:pulumi:token-type:access_token:team',
        scope: 'team:ci',
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        subject_token: `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: OIDC_ISSUER, sub: 'repo:acme/infra:ref:refs/heads/main', aud: 'urn:pulumi:org:acme', iat: 1, exp: 4102444800 })).toString('base64url')}.`,
        expiration: '7200',
      }).toString(),
    ),
  };
  const definition = Buffer.from('values:\n  intruder: true\n');
  const environmentBodies: [RegExp, unknown][] = [
    [/^POST \/api\/esc\/environments\/\{orgName\}$/, { project: 'proj', name: 'intruder' }],
    [/^PATCH .*environments\/.*\{envName\}$/, definition],
    [/^POST .*\/yaml\/check$/, definition],
    [/^POST .*\/clone$/, { name: 'intruder' }],
    [/^POST .*\/versions\/tags$/, { name: 'intruder' }],
    [/^PATCH .*\/versions\/tags\/\{tagName\}$/, { revision: 1 }],
    [/^PATCH .*environments\/.*\/permissions$/, { user: 'viewer', permission: 'admin' }],
  ];
  for (const [pattern, value] of environmentBodies) if (pattern.test(key)) return value;
  if (key in bodies) return bodies[key];
  switch (suffix) {
    case 'hooks':
      return method === 'POST' ? { name: 'intruder', url: 'https://evil.example.com/hook' } : undefined;
    case 'rename':
      return { newName: 'renamed', newProject: dev.project };
    case 'tags':
      return { 'pulumi:project': dev.project, owner: 'mallory' };
    case 'config':
      return method === 'PUT' ? { environment: `${dev.project}/intruder` } : undefined;
    case 'import':
      return deployment(url, dev, 0);
    case 'rollback':
      return { version: 1 };
    case 'history':
      return { version: 99, kind: 'update', result: 'succeeded', startTime: 1, endTime: 2 };
    case 'update':
    case 'preview':
    case 'refresh':
    case 'destroy':
      return method === 'POST' ? { options: { dryRun: false } } : undefined;
    case '{updateId}':
      return method === 'POST' ? { tags: { owner: 'mallory' } } : undefined;
    case 'renew_lease':
      return { token: '', duration: 300 };
    case 'checkpoint':
      return { isInvalid: false, ...deployment(url, dev, 0) };
    case 'checkpointverbatim':
      return { version: 3, untypedDeployment: deployment(url, dev, 0), sequenceNumber: 1 };
    case 'checkpointdelta':
      return { version: 3, checkpointHash: '0'.repeat(64), sequenceNumber: 2, deploymentDelta: [] };
    case 'journalentries':
      return { entries: [{ version: 1, kind: 0, sequenceID: 1, operationID: 1, removeOld: null, removeNew: null }] };
    case 'batch':
      return { events: engineEvents({ delete: 9 }, false) };
    case 'complete':
      return { status: 'failed' };
    case 'encrypt':
      return { plaintext: 'aGk=' };
    case 'decrypt':
      return { ciphertext: 'aGk=' };
    case 'batch-encrypt':
      return { plaintexts: ['aGk='] };
    case 'batch-decrypt':
      return { ciphertexts: ['aGk='] };
    case 'log-decryption':
      return { secretName: 'x' };
    case 'log-batch-decryption':
      return { commandName: 'pulumi stack export' };
    default:
      return undefined;
  }
}

describe.each(['local', 'aws'] as const)('authorization of every route (%s storage)', (storage) => {
  let standIns: AwsStandIns | undefined;
  let serve: ServeProcess;
  let wire: PulumiWire;
  const ids: Record<string, string> = {};
  const callers: Caller[] = [];
  let aliceToken: string;
  let expiredToken: string;
  let revokedToken: string;
  let liveUpdateId: string;
  let liveToken: string;
  let staleToken: string;
  let foreignToken: string;
  let before: string;

  function concretePath(path: string): string {
    const tokenId = path.includes('/teams/') ? ids.teamToken : path.startsWith('/api/orgs/') ? ids.orgToken : ids.aliceToken;
    const filled = path
      .replace('{orgName}', dev.org)
      .replace('{projectName}', dev.project)
      .replace('{stackName}', dev.stack)
      .replace('{updateId}', liveUpdateId)
      .replace('{version}', '1')
      .replace('{tokenId}', tokenId!)
      .replace('{hookName}', HOOK.name)
      .replace('{teamName}', 'ci')
      .replace('{userLogin}', 'mwrite')
      .replace('{policyId}', ids.oidcPolicy!)
      .replace('{deliveryId}', '0000000000000-0000000000000000')
      .replace('{envName}', 'dev')
      .replace('{tagName}', 'stable')
      .replace('{openSessionId}', ids.openSession!)
      .replace('{deploymentId}', ids.deployment!)
      .replace('{planId}', ids.plan!)
      .replace('{scheduleId}', ids.schedule!)
      .replace('{policyPackName}', 'required-tags')
      .replace('{versionTag}', '1.0.0')
      .replace('{policyGroup}', 'lenient')
      .replace('{archiveId}', '00000000-0000-4000-8000-000000000000');
    // Personal token routes act on alice's tokens.
    return /\/api\/user\/tokens/.test(path) ? `${filled}?login=alice` : filled;
  }

  /** Everything the matrix could have changed, as alice (organization admin) and the site administrator see it. */
  async function snapshot(): Promise<string> {
    const asAlice = { token: aliceToken };
    const asAdmin = { token: serve.adminToken };
    const reads = await Promise.all([
      wire.call('GET', stackPath(dev), { auth: asAlice }),
      wire.call('GET', `${stackPath(dev)}/export`, { auth: asAlice }),
      wire.call('GET', `${stackPath(dev)}/updates`, { auth: asAlice }),
      wire.call('GET', `${stackPath(dev)}/permissions`, { auth: asAlice }),
      wire.call('GET', `${stackPath(dev)}/deployments/settings`, { auth: asAlice }),
      wire.call('GET', `${stackPath(dev)}/deployments`, { auth: asAlice }),
      wire.call('GET', `${stackPath(dev)}/approvals`, { auth: asAlice }),
      wire.call('GET', '/api/orgs/acme/approvals', { auth: asAlice }),
      wire.call('GET', `${stackPath(dev)}/plans`, { auth: asAlice }),
      wire.call('GET', `${stackPath(dev)}/deployments/schedules`, { auth: asAlice }),
      wire.call('GET', stackPath(other), { auth: asAlice }),
      wire.call('GET', '/api/user/stacks', { auth: asAlice }),
      wire.call('GET', '/api/orgs', { auth: asAdmin }),
      wire.call('GET', '/api/user/tokens?login=alice', { auth: asAdmin }),
      wire.call('GET', '/api/user/tokens?login=bob', { auth: asAdmin }),
      wire.call('GET', `${stackPath(dev)}/update/${liveUpdateId}`, { auth: asAlice }),
      wire.call('GET', '/api/orgs/acme/hooks', { auth: asAlice }),
      wire.call('GET', `${stackPath(dev)}/hooks`, { auth: asAlice }),
      wire.call('GET', '/api/orgs/acme/members', { auth: asAlice }),
      wire.call('GET', '/api/orgs/acme/teams', { auth: asAlice }),
      wire.call('GET', '/api/orgs/acme/tokens', { auth: asAlice }),
      wire.call('GET', '/api/orgs/acme/teams/ci/tokens', { auth: asAlice }),
      wire.call('GET', '/api/orgs/acme/oidc/policies', { auth: asAlice }),
      ...['/api/esc/environments/acme/proj/dev', '/api/preview/environments/acme/dev'].flatMap((env) => [
        wire.call('GET', `${env}/versions`, { auth: asAlice }),
        wire.call('GET', `${env}/versions/tags`, { auth: asAlice }),
        wire.call('GET', `${env}/permissions`, { auth: asAlice }),
      ]),
      wire.call('GET', '/api/esc/environments/acme', { auth: asAlice }),
      wire.call('GET', '/api/orgs/acme/policypacks', { auth: asAlice }),
      wire.call('GET', '/api/orgs/acme/policygroups/default-policy-group', { auth: asAlice }),
      wire.call('GET', '/api/orgs/acme/policygroups/lenient', { auth: asAlice }),
    ]);
    // Last use is bookkeeping the matrix's own (refused) calls update; everything else must stay the same.
    return JSON.stringify(reads.map((read) => ok(read)), (key, value) => (key === 'lastUsed' ? undefined : value));
  }

  beforeAll(async () => {
    if (storage === 'aws') standIns = await startAwsStandIns();
    serve = await startServe({ storage, ...(standIns ? { env: standIns.env } : {}) });
    wire = new PulumiWire(serve.url);
    const admin = { token: serve.adminToken };
    const userToken = async (login: string, expiresInDays?: number) => {
      const created = ok(await wire.call('POST', '/api/user/tokens', { auth: admin, body: { description: login, login, expiresInDays } }), 201);
      return created as { id: string; tokenValue: string };
    };
    ok(await wire.call('POST', '/api/orgs', { auth: admin, body: { name: 'acme' } }), 201);
    ok(await wire.call('POST', '/api/orgs', { auth: admin, body: { name: 'globex' } }), 201);
    const members: [string, 'admin' | 'member' | 'viewer', string][] = [
      ['alice', 'admin', 'acme'],
      ['mread', 'member', 'acme'],
      ['mwrite', 'member', 'acme'],
      ['madmin', 'member', 'acme'],
      ['viewer', 'viewer', 'acme'],
      ['bob', 'admin', 'globex'],
    ];
    const tokens: Record<string, string> = {};
    for (const [login, role, org] of members) {
      ok(await wire.call('POST', '/api/users', { auth: admin, body: { login } }), 201);
      ok(await wire.call('POST', `/api/orgs/${org}/members`, { auth: admin, body: { login, role } }), 201);
      const created = await userToken(login);
      tokens[login] = created.tokenValue;
      if (login === 'alice') ids.aliceToken = created.id;
    }
    aliceToken = tokens.alice!;
    const asAlice = { token: aliceToken };
    ok(await wire.call('PATCH', '/api/orgs/acme/settings', { auth: asAlice, body: { defaultStackPermission: 'none' } }));
    ok(await wire.call('POST', '/api/orgs/acme/teams', { auth: asAlice, body: { name: 'ci' } }), 201);
    const teamToken = ok(await wire.call('POST', '/api/orgs/acme/teams/ci/tokens', { auth: asAlice, body: { description: 'ci deploys' } }), 201);
    const orgToken = ok(await wire.call('POST', '/api/orgs/acme/tokens', { auth: asAlice, body: { description: 'automation' } }), 201);
    ids.teamToken = teamToken.id;
    const policy = { issuer: OIDC_ISSUER, claims: { sub: 'repo:acme/infra:*' }, tokenKind: 'team', team: 'ci' };
    ids.oidcPolicy = ok(await wire.call('POST', '/api/orgs/acme/oidc/policies', { auth: asAlice, body: policy }), 201).id as string;
    ids.orgToken = orgToken.id;
    // Valid for one second: long past by the time the matrix runs.
    expiredToken = (await userToken('alice', 1 / 86_400)).tokenValue;
    const expiresAt = Date.now() + 1_000;
    const revoked = await userToken('alice');
    ok(await wire.call('DELETE', `/api/user/tokens/${revoked.id}?login=alice`, { auth: admin }));
    revokedToken = revoked.tokenValue;

    await createStack(wire, aliceToken, dev);
    await createStack(wire, aliceToken, other);
    for (const [subject, permission] of [
      [{ user: 'mread' }, 'read'],
      [{ user: 'mwrite' }, 'write'],
      [{ user: 'madmin' }, 'admin'],
      [{ team: 'ci' }, 'write'],
    ] as const) {
      ok(await wire.call('PATCH', `${stackPath(dev)}/permissions`, { auth: asAlice, body: { ...subject, permission } }));
    }
    const finished = await createAndStart(wire, aliceToken, dev, 'update', { dryRun: false });
    ok(await wire.call('PATCH', `${stackPath(dev)}/update/${finished.updateId}/checkpoint`, { auth: { updateToken: finished.leaseToken }, body: { isInvalid: false, ...deployment(serve.url, dev, 2) } }));
    ok(await wire.call('POST', `${stackPath(dev)}/update/${finished.updateId}/complete`, { auth: { updateToken: finished.leaseToken }, body: { status: 'succeeded' } }));
    staleToken = finished.leaseToken;
    await runUpdate(wire, aliceToken, dev, 'update', { dryRun: false, checkpoints: [deployment(serve.url, dev, 3)] });
    ok(await wire.call('POST', `${stackPath(dev)}/encrypt`, { auth: asAlice, body: { plaintext: 'aGk=' } }));
    const live = await createAndStart(wire, aliceToken, dev, 'update', { dryRun: false });
    liveUpdateId = live.updateId;
    liveToken = live.leaseToken;
    foreignToken = (await createAndStart(wire, aliceToken, other, 'update', { dryRun: false })).leaseToken;
    ok(await wire.call('POST', '/api/orgs/acme/hooks', { auth: asAlice, body: HOOK }), 201);
    ok(await wire.call('POST', `${stackPath(dev)}/hooks`, { auth: asAlice, body: HOOK }), 201);
    for (const [env, project] of [['/api/esc/environments/acme/proj/dev', 'proj'], ['/api/preview/environments/acme/dev', 'default']] as const) {
      ok(await wire.call('POST', '/api/esc/environments/acme', { auth: asAlice, body: { project, name: 'dev' } }));
      ok(await wire.call('PATCH', env, { auth: asAlice, body: Buffer.from('values:\n  token:\n    fn::secret: s3cr3t\n') }));
      ok(await wire.call('POST', `${env}/versions/tags`, { auth: asAlice, body: { name: 'stable', revision: 1 } }), 204);
      for (const [subject, permission] of [
        [{ user: 'mread' }, 'read'],
        [{ user: 'madmin' }, 'admin'],
        [{ team: 'ci' }, 'write'],
      ] as const) {
        ok(await wire.call('PATCH', `${env}/permissions`, { auth: asAlice, body: { ...subject, permission } }));
      }
    }
    ids.openSession = ok(await wire.call('POST', '/api/esc/environments/acme/proj/dev/open', { auth: asAlice })).id as string;
    const settings = { sourceContext: { git: { repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main' } } };
    ok(await wire.call('POST', `${stackPath(dev)}/deployments/settings`, { auth: asAlice, body: settings }));
    ids.deployment = ok(await wire.call('POST', `${stackPath(dev)}/deployments`, { auth: asAlice, body: { operation: 'preview' } })).id as string;
    const stackVersion = ok(await wire.call('GET', stackPath(dev), { auth: asAlice })).version as number;
    const plan = { manifest: {}, resourcePlans: {}, stackyard: { stackVersion } };
    ids.plan = ok(await wire.call('POST', `${stackPath(dev)}/plans`, { auth: asAlice, body: { plan, programDigest: 'a'.repeat(64) } }), 201).id as string;
    const schedule = { scheduleCron: '0 0 1 1 *', autoRemediate: false };
    ids.schedule = ok(await wire.call('POST', `${stackPath(dev)}/deployments/drift/schedules`, { auth: asAlice, body: schedule })).id as string;
    const created = ok(await wire.call('POST', '/api/orgs/acme/policypacks', { auth: asAlice, body: PACK_REQUEST }));
    const upload = { body: npmPack(), gzip: false, headers: created.requiredHeaders as Record<string, string> };
    // Local storage takes the tarball through the API; on AWS the upload URI is a presigned PUT to the bucket.
    const uploadUri = new URL(created.uploadURI as string);
    if (uploadUri.origin === new URL(serve.url).origin) ok(await wire.call('PUT', uploadUri.pathname, upload));
    else expect((await fetch(uploadUri, { method: 'PUT', body: new Uint8Array(npmPack()), headers: upload.headers })).status).toBe(200);
    ok(await wire.call('POST', '/api/orgs/acme/policypacks/required-tags/versions/1.0.0/complete', { auth: asAlice }));
    ok(await wire.call('POST', '/api/orgs/acme/policygroups', { auth: asAlice, body: { name: 'lenient', entityType: 'stacks' } }), 204);

    callers.push(
      { name: 'org admin alice', token: aliceToken, stack: 'admin', environment: 'admin', role: 'admin', kind: 'personal' },
      { name: 'member with read', token: tokens.mread!, stack: 'read', environment: 'write', role: 'member', kind: 'personal' },
      { name: 'member with write', token: tokens.mwrite!, stack: 'write', environment: 'write', role: 'member', kind: 'personal' },
      { name: 'member with admin', token: tokens.madmin!, stack: 'admin', environment: 'admin', role: 'member', kind: 'personal' },
      { name: 'viewer', token: tokens.viewer!, stack: 'read', environment: 'read', role: 'viewer', kind: 'personal' },
      { name: 'team token (team holds write)', token: teamToken.tokenValue, stack: 'write', environment: 'write', kind: 'team' },
      { name: 'organization token', token: orgToken.tokenValue, stack: 'admin', environment: 'admin', kind: 'organization' },
      { name: 'admin of another organization', token: tokens.bob!, kind: 'outsider' },
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt + 100 - Date.now())));
    before = await snapshot();
  });

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
    await standIns?.stop();
  });

  // The matrix can outlast the live update's lease on a loaded machine; renewing (which keeps the token) keeps the
  // update live, so its expiry never shows up as a change in the snapshot.
  beforeEach(async () => {
    if (liveToken) await wire.call('POST', `${stackPath(dev)}/update/${liveUpdateId}/renew_lease`, { auth: { updateToken: liveToken }, body: { token: '', duration: 300 } });
  });

  const routes = API_ROUTES.map((route) => ({ name: `${route.method} ${route.path}`, route }));

  it('has a requirement for every route', () => {
    expect(routes.map((r) => r.name).filter((name) => !(name in ROUTE_ACCESS))).toEqual([]);
  });

  it.each(routes)('$name: each caller gets what the permission table gives, and refusals are refusals', async ({ route, name }) => {
    const access = ROUTE_ACCESS[name];
    expect(access, `no requirement for ${name}`).toBeDefined();
    const path = concretePath(route.path);
    const body = bodyFor(serve.url, route.method, route.path);
    const expectStatus = async (auth: Auth, status: number, label: string) => {
      const response = await wire.call(route.method, path, { auth, body, ...(Buffer.isBuffer(body) ? { headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}) });
      expect(response.status, `${label}: ${response.text.slice(0, 300)}`).toBe(status);
      if (route.method !== 'HEAD' && status >= 400) failed(response, status);
    };

    if ('public' in access!) {
      for (const auth of [undefined, { token: 'not-a-token' }, ...callers.map((caller) => ({ token: caller.token }))]) {
        expect((await wire.call(route.method, path, { auth })).status, `${name} with ${JSON.stringify(auth)}`).toBe(200);
      }
      return;
    }
    await expectStatus(undefined, 401, 'no credentials');
    if ('lease' in access!) {
      await expectStatus({ token: aliceToken }, 401, 'an API token instead of the update token');
      await expectStatus({ updateToken: 'not-a-lease-token' }, 403, 'an unknown update token');
      await expectStatus({ updateToken: staleToken }, 403, 'the token of a completed update');
      await expectStatus({ updateToken: foreignToken }, 403, "another stack's live update token");
      return;
    }
    await expectStatus({ token: 'not-a-token' }, 401, 'an unknown API token');
    await expectStatus({ token: expiredToken }, 401, 'an expired token');
    await expectStatus({ token: revokedToken }, 401, 'a revoked token');
    await expectStatus({ updateToken: liveToken }, 401, 'an update token on an API-token route');
    for (const caller of callers) {
      const outcome = expected(access!, caller);
      if (outcome !== 'allowed') {
        await expectStatus({ token: caller.token }, outcome, caller.name);
      } else if ((route.method === 'GET' || route.method === 'HEAD') && !route.path.includes('{openSessionId}')) {
        // An open session is its opener's alone: others (allowed to open) get 404 for alice's.
        const response = await wire.call(route.method, path, { auth: { token: caller.token } });
        expect(response.status, `${caller.name} (allowed): ${response.text.slice(0, 300)}`).toBeLessThan(300);
      }
    }
  });

  it('lists to each caller only the stacks it may read', async () => {
    const listed = async (token: string) =>
      (ok(await wire.call('GET', '/api/user/stacks', { auth: { token } })).stacks as { orgName: string; stackName: string }[])
        .filter((s) => s.orgName === 'acme')
        .map((s) => s.stackName)
        .sort();

    expect(await listed(aliceToken)).toEqual(['dev', 'other']);
    expect(await listed(callers[1]!.token)).toEqual(['dev']);
    expect(await listed(callers[5]!.token)).toEqual(['dev']);
    expect(await listed(callers[7]!.token)).toEqual([]);
  });

  it('changed nothing: state, history, permissions, members, teams, tokens and the live update are as before', async () => {
    const after = await snapshot();

    expect(after).toEqual(before);
    const renewed = ok(await wire.call('POST', `${stackPath(dev)}/update/${liveUpdateId}/renew_lease`, { auth: { updateToken: liveToken }, body: { token: '', duration: 300 } }));
    expect(renewed.token).toMatch(/\S/);
    expect(ok(await wire.call('GET', stackPath(dev), { auth: { token: aliceToken } })).activeUpdate).toBe(liveUpdateId);
  });
});
