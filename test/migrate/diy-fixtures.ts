/**
 * Pulumi DIY backends built the way pulumi/pulumi `pkg/backend/diy` lays them out (see cli/migrate/diy-source.ts),
 * with states produced by real `up`s: each stack is deployed on a scratch `login --local` backend with the testprov
 * provider, its versions exported with `--show-secrets` into memory only, and written as DIY checkpoints and history
 * whose secrets are encrypted the way Pulumi does (passphrase: Pulumi's own published salt and ciphertext for one
 * stack, fresh salts for others; `awskms://` through the KMS stand-in).
 */
import { KMSClient, EncryptCommand } from '@aws-sdk/client-kms';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { newPassphraseState, passphraseCrypter, SymmetricCrypter } from '../../cli/secrets/pulumi-crypter.js';
import { CliSandbox, TESTPROV_DIR } from '../cli/cli-harness.js';

export const SIG = '4dabf18193072939515e22adb298388d';
export const SECRET_SIG = '1b47061264138c4ac30d75fd1eb44270';
/** The passphrase and encryption salt of pulumi/pulumi tests/roundtrip (TestConfigRoundtripComments). */
export const PASSPHRASE = 'TestConfigRoundtripComments';
export const PULUMI_SALT = 'v1:ThS5UPxP9qc=:v1:UZYAXF+ylaJ0rGhv:9OTvBnOEDFgxs7btjzSu+LZ470vLpg==';
/** Made by Pulumi under PULUMI_SALT: the plaintext is `secret-value`. */
export const PULUMI_CIPHERTEXT = 'v1:T1ftqhY0hqr+EJK6:+jvd5PMecFx80tcavzuZY4tLatgIfoe/xR72GA==';

export type SecretsKind = 'pulumi-salt' | 'passphrase' | 'kms';

export interface FixtureStack {
  project: string;
  stack: string;
  secrets: SecretsKind;
  /** The secret config value `password` (also exported as a secret output). */
  password: string;
  /** How many history entries the DIY backend keeps (the two real versions, repeated). */
  historyEntries: number;
  gzip?: boolean;
}

export const PROGRAM =
  "const pulumi = require('@pulumi/pulumi');\n" +
  'const cfg = new pulumi.Config();\n' +
  "const thing = new pulumi.CustomResource('testprov:index:Thing', 'one', { value: 1, password: cfg.requireSecret('password') });\n" +
  "exports.password = cfg.requireSecret('password');\n" +
  "exports.name = cfg.require('name');\n";

export const projectYaml = (name: string) =>
  `name: ${name}\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`;

interface Version {
  info: { kind: string; startTime: number; endTime: number; message: string; resourceChanges?: Record<string, number> };
  /** With `plaintext` secrets, as `stack export --show-secrets` writes it; kept in memory only. */
  deployment: { version: number; deployment: Record<string, unknown> };
  name: string;
}

export interface Scratch {
  sandbox: CliSandbox;
  world: string;
  versions: Map<string, Version[]>;
}

const key = (s: { project: string; stack: string }) => `${s.project}/${s.stack}`;

/** Deploys every stack twice (name `<stack>-v1`, then `-v2`) on a scratch local backend. */
export async function deployScratch(stacks: FixtureStack[]): Promise<Scratch> {
  const sandbox = new CliSandbox();
  const world = join(sandbox.root, 'world');
  mkdirSync(world);
  const versions = new Map<string, Version[]>();
  const projects = new Map<string, string>();
  for (const fixture of stacks) {
    let dir = projects.get(fixture.project);
    if (!dir) {
      dir = sandbox.project(`scratch-${fixture.project}`, projectYaml(fixture.project), { 'index.js': PROGRAM });
      projects.set(fixture.project, dir);
      await sandbox.run(dir, ['login', '--local']);
    }
    const run = async (...args: string[]) => {
      const result = await sandbox.run(dir!, args, { env: { TESTPROV_WORLD: world } });
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      return result;
    };
    await run('stack', 'init', fixture.stack);
    await run('config', 'set', '--secret', 'password', fixture.password);
    const list: Version[] = [];
    for (const round of [1, 2]) {
      const name = `${fixture.stack}-v${round}`;
      await run('config', 'set', 'name', name);
      await run('up', '--yes', '--skip-preview', '-m', `round ${round}`);
      const deployment = JSON.parse((await run('stack', 'export', '--show-secrets', '--version', String(round))).stdout);
      const [info] = JSON.parse((await run('stack', 'history', '--json', '--page-size', '1')).stdout);
      list.push({
        info: {
          kind: info.kind,
          startTime: Math.floor(Date.parse(info.startTime) / 1000),
          endTime: Math.floor(Date.parse(info.endTime) / 1000),
          message: info.message,
          resourceChanges: info.resourceChanges,
        },
        deployment,
        name,
      });
    }
    versions.set(key(fixture), list);
  }
  return { sandbox, world, versions };
}

/** How a stack's secrets are encrypted in the DIY backend, and what its stack file says about it. */
interface StackSecrets {
  crypter: SymmetricCrypter;
  provider: { type: string; state: Record<string, string> };
  fileSettings: Record<string, string>;
}

export async function stackSecrets(kind: SecretsKind, kms: { endpoint: string; alias: string }): Promise<StackSecrets> {
  if (kind === 'pulumi-salt') {
    return { crypter: await passphraseCrypter(PASSPHRASE, PULUMI_SALT), provider: { type: 'passphrase', state: { salt: PULUMI_SALT } }, fileSettings: { encryptionsalt: PULUMI_SALT } };
  }
  if (kind === 'passphrase') {
    const { state, crypter } = await newPassphraseState(PASSPHRASE);
    return { crypter, provider: { type: 'passphrase', state: { salt: state } }, fileSettings: { encryptionsalt: state } };
  }
  const dataKey = randomBytes(32);
  const client = new KMSClient({ endpoint: kms.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  const wrapped = await client.send(new EncryptCommand({ KeyId: kms.alias, Plaintext: dataKey }));
  client.destroy();
  const url = `awskms://${kms.alias}?region=us-east-1&endpoint=${encodeURIComponent(kms.endpoint)}`;
  const encryptedkey = Buffer.from(wrapped.CiphertextBlob!).toString('base64');
  return { crypter: new SymmetricCrypter(dataKey), provider: { type: 'cloud', state: { url, encryptedkey } }, fileSettings: { secretsprovider: url, encryptedkey } };
}

/** The deployment with each `plaintext` secret encrypted by `crypter` (as Pulumi's checkpoints hold them). */
function sealed(deployment: Version['deployment'], secrets: StackSecrets): Version['deployment'] {
  const copy = structuredClone(deployment);
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') {
      const object = value as Record<string, unknown>;
      if (object[SIG] === SECRET_SIG && typeof object.plaintext === 'string') {
        object.ciphertext = secrets.crypter.encrypt(object.plaintext);
        delete object.plaintext;
      } else Object.values(object).forEach(walk);
    }
  };
  walk(copy.deployment);
  copy.deployment.secrets_providers = secrets.provider;
  return copy;
}

export type Writer = (key: string, bytes: Buffer) => Promise<void>;

export function folderWriter(root: string): Writer {
  return async (key, bytes) => {
    const path = join(root, ...key.split('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
  };
}

export function s3Writer(endpoint: string, bucket: string, prefix: string): Writer {
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return async (key, bytes) => {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/${key}`, Body: bytes }));
  };
}

/**
 * Writes a DIY backend (`layout` 'project' writes `.pulumi/meta.yaml` version 1) and each stack's
 * `Pulumi.<stack>.yaml` into `projectDirs[project]`. Returns the config values each stack must read back.
 */
export async function writeDiyBackend(
  write: Writer,
  layout: 'project' | 'legacy',
  stacks: FixtureStack[],
  scratch: Scratch,
  kms: { endpoint: string; alias: string },
  projectDirs: Record<string, string>,
): Promise<void> {
  if (layout === 'project') await write('.pulumi/meta.yaml', Buffer.from('version: 1\n'));
  for (const fixture of stacks) {
    const versions = scratch.versions.get(key(fixture))!;
    const secrets = await stackSecrets(fixture.secrets, kms);
    const ext = fixture.gzip ? '.json.gz' : '.json';
    const encode = (value: unknown) => (fixture.gzip ? gzipSync(JSON.stringify(value)) : Buffer.from(JSON.stringify(value, null, 4)));
    const scope = layout === 'project' ? `${fixture.project}/${fixture.stack}` : fixture.stack;
    const checkpoint = (deployment: Version['deployment']) => ({
      version: 3,
      checkpoint: { stack: layout === 'project' ? `organization/${scope}` : fixture.stack, latest: sealed(deployment, secrets).deployment },
    });
    // Sealed once per version: a history checkpoint is a byte copy of the stack file it was taken from.
    const checkpoints = versions.map((version) => checkpoint(version.deployment));
    const passwordCiphertext = fixture.secrets === 'pulumi-salt' ? PULUMI_CIPHERTEXT : secrets.crypter.encrypt(fixture.password);
    for (let i = 0; i < fixture.historyEntries; i++) {
      const index = (fixture.historyEntries - 1 - i) % 2 === 0 ? 1 : 0;
      const version = versions[index]!;
      const nanos = `${1_700_000_000 + i}000000000`;
      const base = `.pulumi/history/${scope}/${fixture.stack}-${nanos}`;
      const info = {
        ...version.info,
        environment: { 'exec.kind': 'cli' },
        config: { [`${fixture.project}:name`]: version.name, [`${fixture.project}:password`]: { secure: passwordCiphertext } },
        version: i + 1,
        result: 'succeeded',
      };
      await write(`${base}.history${ext}`, encode(info));
      await write(`${base}.checkpoint${ext}`, encode(checkpoints[index]));
    }
    await write(`.pulumi/stacks/${scope}${ext}`, encode(checkpoints[1]));
    await write(`.pulumi/stacks/${scope}.pulumi-tags`, Buffer.from(JSON.stringify({ version: 1, tags: { team: `team-${fixture.project}`, 'pulumi:project': fixture.project } })));
    const settings = Object.entries(secrets.fileSettings).map(([name, value]) => `${name}: ${value}\n`).join('');
    writeFileSync(
      join(projectDirs[fixture.project]!, `Pulumi.${fixture.stack}.yaml`),
      `${settings}# migrated from Pulumi\nconfig:\n  ${fixture.project}:name: ${fixture.stack}-v2\n  ${fixture.project}:password:\n    secure: ${passwordCiphertext}\n`,
    );
  }
}
