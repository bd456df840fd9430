/**
 * Helpers of the policy pack conformance tests: pulumi-policy's integration programs (test/fixtures/policy/program)
 * run with `preview`/`up --policy-pack` through `runOperation`, with the stand-in `random` provider installed in a
 * temporary plugin cache; a scenario is the program `suite` and `scenario` config, as the Go test sets them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runOperation, type EngineEvent, type OperationBackend, type OperationCommand, type OperationFlags, type OperationSession } from '../../../cli/engine/operation.js';
import type { UntypedDeployment } from '../../../cli/engine/state/deployment.js';
import { addPlugin, FIXTURES, pulumiHomeWith, testCrypter } from '../engine-harness.js';

export const POLICY_FIXTURES = join(FIXTURES, 'policy');
/** The folder of a pack of test/fixtures/policy/packs. */
export const pack = (name: string) => join(POLICY_FIXTURES, 'packs', name);

const RANDOM_PROVIDER = join(POLICY_FIXTURES, 'random-provider/provider.cjs');
const home = pulumiHomeWith('random', '4.16.0', RANDOM_PROVIDER);
// the provider scenario's program pins @pulumi/random 4.0.0
addPlugin(home, 'random', '4.0.0', RANDOM_PROVIDER);
// the remote_component scenario's component provider
addPlugin(home, 'testcomponent', '0.0.1', join(POLICY_FIXTURES, 'testcomponent/provider.cjs'));
/** The `$PULUMI_HOME` of every run (its plugin cache, and the required packs installed there). */
export const POLICY_PULUMI_HOME = home;

/** What one command printed and recorded. */
export interface PolicyRun {
  code: number;
  out: string;
  events: EngineEvent[];
  /** URNs the random provider created. */
  created: string[];
  state: UntypedDeployment | undefined;
}

/** A stack of the policy program whose state carries over between commands. */
export class PolicyStack {
  private state: UntypedDeployment | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), 'stackyard-policy-'));
  private readonly createdLog = join(this.dir, 'created.log');
  private readonly crypter = testCrypter();

  /** `config` adds stack config (full keys, e.g. `aws:region`) to `suite` and `scenario`, as the Go test's `initialConfig`. */
  constructor(
    readonly suite: string,
    private readonly config: Record<string, string> = {},
  ) {}

  /** Writes a `--policy-pack-config` file and returns its path. */
  configFile(content: unknown): string {
    const file = join(this.dir, `config-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(content, null, 4));
    return file;
  }

  /** Runs `command` for `scenario` with `flags` (default: `--yes`); `session` adds to each update's session (required packs). */
  async run(command: OperationCommand, scenario: number, flags: OperationFlags = {}, session: Partial<OperationSession> = {}): Promise<PolicyRun> {
    writeFileSync(this.createdLog, '');
    let out = '';
    const events: EngineEvent[] = [];
    const backend: OperationBackend = {
      crypter: this.crypter,
      begin: async (_kind, dryRun) => ({
        base: this.state,
        persister: dryRun ? undefined : { save: async (c) => void (this.state = JSON.parse(c.text) as UntypedDeployment) },
        recordEvents: (batch) => void events.push(...batch),
        complete: async () => undefined,
        ...session,
      }),
    };
    const code = await runOperation({
      command,
      flags: { yes: true, ...flags },
      program: { rootDir: join(POLICY_FIXTURES, 'program'), project: 'policy-tests', stack: 'dev' },
      config: {
        'policy-tests:suite': { value: this.suite, secret: false },
        'policy-tests:scenario': { value: String(scenario), secret: false },
        ...Object.fromEntries(Object.entries(this.config).map(([k, value]) => [k, { value, secret: false }])),
      },
      backend,
      write: (t) => (out += t),
      env: {
        ...process.env,
        PULUMI_HOME: home,
        RANDOM_LOG: this.createdLog,
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
        // what the Go test sets for its packs to compare with getProject() and getStack()
        PULUMI_TEST_PROJECT: 'policy-tests',
        PULUMI_TEST_STACK: 'dev',
      },
    });
    const created = readFileSync(this.createdLog, 'utf8').split('\n').filter(Boolean);
    return { code, out, events, created, state: this.state };
  }
}

/** `up --yes --policy-pack <suite's pack>` (with `--policy-pack-config` when given), as the Go test runs it. */
export function upWithPack(stack: PolicyStack, scenario: number, extra: OperationFlags & { configFile?: string } = {}): Promise<PolicyRun> {
  const { configFile, ...flags } = extra;
  return stack.run('up', scenario, { policyPacks: [{ path: pack(stack.suite), ...(configFile ? { configFile } : {}) }], ...flags });
}

/** The payloads of the events of one kind (`policyEvent`, `summaryEvent` …). */
export function eventsOf<T = Record<string, unknown>>(run: PolicyRun, kind: string): T[] {
  return run.events.flatMap((e) => (kind in e ? [(e as unknown as Record<string, T>)[kind]!] : []));
}
