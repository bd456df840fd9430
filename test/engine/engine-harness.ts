/** Shared helpers for engine tests: a real AES-GCM crypter, an in-memory persister, and a run wrapper. */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Checkpoint, SecretsCrypter, UntypedDeployment } from '../../cli/engine/state/deployment.js';
import type { StepEvent, DiagEvent } from '../../cli/engine/display/events.js';
import type { StackConfig } from '../../cli/engine/config/program-config.js';
import { runDeployment, type DeploymentKind, type DeploymentOptions, type DeploymentResult } from '../../cli/engine/run-deployment.js';

/** Repository paths of the fixtures. */
export const FIXTURES = resolve(import.meta.dirname, '../fixtures');
export const TESTPROV_DIR = join(FIXTURES, 'providers/testprov');

/**
 * A fresh $PULUMI_HOME whose plugin cache holds one resource plugin, `name` at `version`, in Pulumi's layout: a
 * wrapper that runs the Node script `script` with this Node.
 */
export function pulumiHomeWith(name: string, version: string, script: string): string {
  const home = mkdtempSync(join(tmpdir(), 'stackyard-pulumi-home-'));
  addPlugin(home, name, version, script);
  return home;
}

/** Adds resource plugin `name` at `version` (the Node script `script`) to the plugin cache of `home`. */
export function addPlugin(home: string, name: string, version: string, script: string): void {
  const dir = join(home, 'plugins', `resource-${name}-v${version}`);
  mkdirSync(dir, { recursive: true });
  const bin = join(dir, `pulumi-resource-${name}`);
  writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${script}" "$@"\n`);
  chmodSync(bin, 0o755);
}

/** AES-256-GCM with a random key: a real crypter whose ciphertexts cannot be read without the key. */
export function testCrypter(): SecretsCrypter & { decryptions: number } {
  const key = randomBytes(32);
  const c = {
    decryptions: 0,
    secretsProvider: { type: 'stackyard-test', state: { note: 'test key' } },
    async encrypt(plaintexts: string[]): Promise<string[]> {
      return plaintexts.map((p) => {
        const iv = randomBytes(12);
        const cipher = createCipheriv('aes-256-gcm', key, iv);
        const body = Buffer.concat([cipher.update(p, 'utf8'), cipher.final()]);
        return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
      });
    },
    async decrypt(ciphertexts: string[]): Promise<string[]> {
      c.decryptions += ciphertexts.length;
      return ciphertexts.map((t) => {
        const raw = Buffer.from(t, 'base64');
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      });
    },
  };
  return c;
}

/** Everything one run produced. */
export interface RunRecord {
  result: DeploymentResult;
  steps: StepEvent[];
  diags: DiagEvent[];
  output: string;
  saves: Checkpoint[];
  /** The stored state after the run, as `stack export` would give it. */
  state: UntypedDeployment | undefined;
}

/** A stack under test: its state carries over between runs. */
export class TestStack {
  state: UntypedDeployment | undefined;
  readonly crypter = testCrypter();
  readonly env: NodeJS.ProcessEnv;
  readonly world = mkdtempSync(join(tmpdir(), 'stackyard-world-'));
  readonly log = join(this.world, 'calls.log');

  constructor(
    readonly programDir: string,
    readonly project: string,
    readonly stack = 'dev',
    env: NodeJS.ProcessEnv = {},
  ) {
    this.env = { ...process.env, TESTPROV_WORLD: this.world, TESTPROV_LOG: this.log, ...env };
  }

  /** Runs the engine against this stack's state. */
  async run(kind: DeploymentKind, config: StackConfig, extra: Partial<DeploymentOptions> = {}): Promise<RunRecord> {
    const steps: StepEvent[] = [];
    const diags: DiagEvent[] = [];
    const saves: Checkpoint[] = [];
    let output = '';
    const result = await runDeployment({
      kind,
      program: { rootDir: this.programDir, project: this.project, stack: this.stack, ...(extra.program ?? {}) },
      config,
      base: this.state,
      crypter: this.crypter,
      persister: { save: async (c) => void saves.push(c) },
      events: {
        step: (e) => steps.push(e),
        diag: (d) => diags.push(d),
        programOutput: (_s, t) => (output += t),
      },
      env: this.env,
      projectPlugins: [{ name: 'testprov', path: TESTPROV_DIR }],
      ...extra,
    });
    const last = saves.at(-1);
    if (last) this.state = JSON.parse(last.text) as UntypedDeployment;
    return { result, steps, diags, output, saves, state: this.state };
  }
}
