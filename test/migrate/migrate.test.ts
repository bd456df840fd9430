/**
 * `stackyard migrate` end to end through the bundled CLI (needs `npm run build`): Pulumi DIY backends in a folder
 * and in S3 (s3rver), both layouts, several projects and stacks, passphrase and awskms:// secrets, into `serve`
 * (local and AWS storage) and `--local`; then from one `serve` (standing in for the Pulumi service) into another.
 * Afterwards every secret reads back, outputs show, previews find no changes, and no stored object or file holds a
 * plaintext secret. Also: the dry run changes nothing, re-runs skip, an interrupted run finishes, a failing stack
 * does not stop the others.
 */
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { CLI, removeSandboxes } from '../cli/cli-harness.js';
import { startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';
import { startKmsServer, type KmsStandIn } from '../support/kms-server.js';
import { deployScratch, folderWriter, PASSPHRASE, s3Writer, writeDiyBackend, type FixtureStack, type Scratch } from './diy-fixtures.js';
import { expectMigrated, plaintextHits, snapshot, UserProjects } from './migrate-harness.js';

const PROJECT_LAYOUT: FixtureStack[] = [
  { project: 'web', stack: 'dev', secrets: 'pulumi-salt', password: 'secret-value', historyEntries: 2 },
  { project: 'web', stack: 'prod', secrets: 'kms', password: 'prod-pw-7x1', historyEntries: 2, gzip: true },
  { project: 'api', stack: 'dev', secrets: 'passphrase', password: 'api-pw-3k9', historyEntries: 8 },
];
const LEGACY_LAYOUT: FixtureStack[] = [
  { project: 'web', stack: 'oldweb', secrets: 'passphrase', password: 'old-pw-1q2', historyEntries: 2 },
  { project: 'api', stack: 'oldapi', secrets: 'kms', password: 'old-api-pw-5', historyEntries: 2, gzip: true },
];
const PASSWORDS = [...PROJECT_LAYOUT, ...LEGACY_LAYOUT].map((s) => s.password);
const PASS_ENV = { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE };
const AWS_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };

let kms: KmsStandIn;
let scratch: Scratch;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  kms = await startKmsServer();
  stops.push(() => kms.stop());
  scratch = await deployScratch([...PROJECT_LAYOUT, ...LEGACY_LAYOUT]);
}, 600_000);

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  removeSandboxes();
});

/** A user with both DIY folders (project-scoped and legacy) written next to their projects. */
async function userWithDiyFolders(env: NodeJS.ProcessEnv = {}) {
  const user = new UserProjects(scratch.world, { ...AWS_CREDENTIALS, ...env });
  const projectFolder = join(user.sandbox.root, 'diy-project');
  const legacyFolder = join(user.sandbox.root, 'diy-legacy');
  await writeDiyBackend(folderWriter(projectFolder), 'project', PROJECT_LAYOUT, scratch, kms, user.dirs);
  await writeDiyBackend(folderWriter(legacyFolder), 'legacy', LEGACY_LAYOUT, scratch, kms, user.dirs);
  return { user, projectFolder, legacyFolder };
}

async function startLocalServe(): Promise<ServeProcess & { dataDir: string }> {
  const dataDir = join((await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'sy-migrate-serve-')));
  const serve = await startServe({ storage: 'local', dataDir });
  stops.push(serve.stop);
  return Object.assign(serve, { dataDir });
}

describe('from a DIY folder (both layouts) into serve with local storage, then from that serve into another', () => {
  let serve: ServeProcess & { dataDir: string };
  let user: UserProjects;
  let projectFolder: string;
  let legacyFolder: string;

  beforeAll(async () => {
    serve = await startLocalServe();
    ({ user, projectFolder, legacyFolder } = await userWithDiyFolders());
    const login = await user.run('web', ['login', serve.url], { STACKYARD_ACCESS_TOKEN: serve.adminToken });
    expect(login.status, login.stderr).toBe(0);
  }, 300_000);

  it('--dry-run prints the plan and changes nothing', async () => {
    const roots = [serve.dataDir, user.sandbox.root];
    const before = snapshot(roots);

    const plan = await user.migrate(['--from', `file://${projectFolder}`, '--dry-run'], PASS_ENV);

    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('dry run: nothing was changed');
    expect(plan.stdout).toMatch(/web\/dev\s+admin\/web\/dev\s+new\s+3\s+2\s+3 \(passphrase\)/);
    expect(plan.stdout).toMatch(/web\/prod\s+admin\/web\/prod\s+new\s+3\s+2\s+3 \(awskms:\/\//);
    expect(plan.stdout).toMatch(/api\/dev\s+admin\/api\/dev\s+new\s+3\s+8\s+3 \(passphrase\)\s+1 in .*Pulumi\.dev\.yaml/);
    expect(snapshot(roots)).toEqual(before);
  });

  it('--dry-run exits non-zero when the plan has error rows (a wrong passphrase), and changes nothing', async () => {
    const roots = [serve.dataDir, user.sandbox.root];
    const before = snapshot(roots);

    const plan = await user.migrate(['--from', `file://${projectFolder}`, '--dry-run'], { PULUMI_CONFIG_PASSPHRASE: 'not-the-passphrase' });

    expect(plan.status).toBe(1);
    expect(plan.stdout).toMatch(/Conflicts and errors:\n {2}api\/dev: .*\n {2}web\/dev: /);
    expect(plan.stderr).toMatch(/error: 2 stack\(s\) of the plan would not be migrated/);
    expect(snapshot(roots)).toEqual(before);
  });

  it('migrates every stack with its history, tags and stack file; the source is only read', async () => {
    const sources = snapshot([projectFolder, legacyFolder]);

    const project = await user.migrate(['--from', `file://${projectFolder}`], PASS_ENV);
    const legacy = await user.migrate(['--from', `file://${legacyFolder}`], PASS_ENV);

    expect(project.status, project.stderr).toBe(0);
    expect(project.stderr).toContain('[1/3] api/dev → admin/api/dev: history 8/8');
    expect(project.stderr).toMatch(/\[3\/3\] web\/prod → admin\/web\/prod: migrated \(3 resources, 2 history entries, 3 state secrets re-encrypted, .*Pulumi\.prod\.yaml rewritten/);
    expect(project.stdout).toBe(`Migrated 3 stack(s) from file://${projectFolder}; 0 already migrated (skipped); 0 failed.\n`);
    expect(legacy.status, legacy.stderr).toBe(0);
    for (const fixture of [...PROJECT_LAYOUT, ...LEGACY_LAYOUT]) await expectMigrated(user, fixture);
    expect(snapshot([projectFolder, legacyFolder])).toEqual(sources);
    const backup = readFileSync(join(user.dirs.web!, 'Pulumi.dev.yaml.bak'), 'utf8');
    expect(backup).toContain('encryptionsalt: v1:ThS5UPxP9qc=');
  }, 420_000);

  it('a re-run skips what is migrated and says so', async () => {
    const rerun = await user.migrate(['--from', `file://${projectFolder}`], PASS_ENV);

    expect(rerun.status, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain('[2/3] web/dev: already migrated to admin/web/dev, skipped');
    expect(rerun.stdout).toContain('0 stack(s)');
    expect(rerun.stdout).toContain('3 already migrated (skipped)');
  });

  it('no stored object, stack file, backup or temporary file holds a plaintext secret', () => {
    const probe = join(user.sandbox.root, 'probe');
    mkdirSync(probe);
    writeFileSync(join(probe, 'object.gz'), gzipSync(`{"x":"${PASSWORDS[0]}"}`));
    expect(plaintextHits([probe], PASSWORDS)).toEqual([`${join(probe, 'object.gz')}: ${PASSWORDS[0]}`]);
    rmSync(probe, { recursive: true });

    expect(plaintextHits([serve.dataDir, user.sandbox.root, projectFolder, legacyFolder], PASSWORDS)).toEqual([]);
  });

  it('migrates from this serve (standing in for the Pulumi service) into another serve: --stack globs, --org acme', async () => {
    const other = await startLocalServe();
    const source = serve.url;
    await user.run('web', ['login', other.url], { STACKYARD_ACCESS_TOKEN: other.adminToken });
    expect((await user.run('web', ['org', 'create', 'acme'])).status).toBe(0);

    const moved = await user.migrate(['--from', source, '--org', 'acme', '--stack', 'web/*', '--stack', '*/dev']);

    expect(moved.status, moved.stderr).toBe(0);
    expect(moved.stdout).toContain(`Migrated 4 stack(s) from ${source}`);
    for (const fixture of [...PROJECT_LAYOUT, LEGACY_LAYOUT[0]!]) await expectMigrated(user, fixture, `acme/${fixture.project}/${fixture.stack}`);
    expect(plaintextHits([other.dataDir, user.sandbox.root], PASSWORDS)).toEqual([]);
  }, 420_000);
});

/** Every item of the serve's DynamoDB table (stack records, updates with their config, history). */
async function scanTable(aws: AwsStandIns): Promise<unknown[]> {
  const client = new DynamoDBClient({ endpoint: aws.dynamodb.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  const items: unknown[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: aws.table, ExclusiveStartKey: start as never }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  client.destroy();
  return items;
}

describe('from a DIY bucket in S3 (s3rver, both layouts) into serve with AWS storage', () => {
  let aws: AwsStandIns;
  let serve: ServeProcess;
  let user: UserProjects;
  let bucket: string;

  beforeAll(async () => {
    aws = await startAwsStandIns();
    stops.push(() => aws.stop());
    serve = await startServe({ storage: 'aws', env: aws.env });
    stops.push(serve.stop);
    user = new UserProjects(scratch.world, AWS_CREDENTIALS);
    bucket = await aws.createBucket(`pulumi-diy-${Date.now()}`);
    await writeDiyBackend(s3Writer(aws.s3.endpoint, bucket, 'proj'), 'project', PROJECT_LAYOUT, scratch, kms, user.dirs);
    await writeDiyBackend(s3Writer(aws.s3.endpoint, bucket, 'legacy'), 'legacy', LEGACY_LAYOUT, scratch, kms, user.dirs);
    await user.run('web', ['login', serve.url], { STACKYARD_ACCESS_TOKEN: serve.adminToken });
  }, 300_000);

  it('migrates both prefixes; every secret, output and preview works; nothing in S3 is plaintext', async () => {
    const endpoint = encodeURIComponent(aws.s3.endpoint);

    const project = await user.migrate(['--from', `s3://${bucket}/proj?region=us-east-1&endpoint=${endpoint}`], PASS_ENV);
    const legacy = await user.migrate(['--from', `s3://${bucket}/legacy?endpoint=${endpoint}`], PASS_ENV);

    expect(project.status, project.stderr).toBe(0);
    expect(legacy.status, legacy.stderr).toBe(0);
    expect(project.stdout).toContain(`Migrated 3 stack(s) from s3://${bucket}/proj`);
    for (const fixture of [...PROJECT_LAYOUT, ...LEGACY_LAYOUT]) await expectMigrated(user, fixture);
    const hits = plaintextHits([aws.s3.directory, user.sandbox.root], PASSWORDS);
    expect(hits).toEqual([]);
    const items = JSON.stringify(await scanTable(aws));
    expect(items).toContain('stackyard:migrated-from');
    expect(PASSWORDS.filter((password) => items.includes(password))).toEqual([]);
  }, 600_000);
});

describe('into --local', () => {
  it('migrates DIY folders of both layouts; a conflicting stack fails alone with the exit code set', async () => {
    const { user, projectFolder, legacyFolder } = await userWithDiyFolders();
    await user.run('web', ['login', '--local']);
    await user.run('web', ['stack', 'init', 'prod', '--no-select']);

    const first = await user.migrate(['--from', `file://${projectFolder}`], PASS_ENV);

    expect(first.status).toBe(1);
    expect(first.stderr).toContain('web/prod: failed: organization/web/prod already exists in the target and was not migrated from this source');
    expect(first.stdout).toContain('Migrated 2 stack(s)');
    expect(first.stderr).toContain('1 stack(s) were not migrated');
    const legacy = await user.migrate(['--from', legacyFolder], PASS_ENV);
    expect(legacy.status, legacy.stderr).toBe(0);
    for (const fixture of [...PROJECT_LAYOUT.filter((s) => s.stack !== 'prod' || s.project !== 'web'), ...LEGACY_LAYOUT]) await expectMigrated(user, fixture);
    expect(plaintextHits([user.sandbox.root], PASSWORDS)).toEqual([]);
  }, 420_000);

  it('an interrupted migration finishes on the next run, with every history entry once', async () => {
    const { user, projectFolder } = await userWithDiyFolders();
    await user.run('web', ['login', '--local']);
    const args = [CLI, 'migrate', '--from', `file://${projectFolder}`, '--stack', 'api/dev', '--project-dir', user.dirs.api!];
    const child = spawn(process.execPath, args, { cwd: user.dirs.web!, env: { ...user.sandbox.env, ...PASS_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    await new Promise<void>((resolve) => {
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('history 3/8')) child.kill('SIGKILL');
      });
      child.on('exit', () => resolve());
    });
    const interrupted = JSON.parse((await user.run('api', ['stack', 'history', '--json', '-s', 'dev'])).stdout) as unknown[];

    const resumed = await user.migrate(['--from', `file://${projectFolder}`, '--stack', 'api/dev'], PASS_ENV);

    expect(interrupted.length).toBeGreaterThanOrEqual(3);
    expect(interrupted.length).toBeLessThan(8);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming an interrupted migration at version ${interrupted.length}`);
    await expectMigrated(user, PROJECT_LAYOUT[2]!);
    expect(existsSync(join(user.dirs.api!, 'Pulumi.dev.yaml.bak'))).toBe(true);
  }, 420_000);
});
