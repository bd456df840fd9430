/**
 * The flags of `pulumi preview|up|destroy|refresh`, declared on our commands so scripts written for `pulumi` keep
 * working. Each is either mapped to `OperationFlags` (and acted on) or refused with the reason why (docs/cli.md).
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { ColorMode } from '../engine/display/display-types.js';
import { parseDurationSeconds } from '../engine/go-formats/durations.js';
import type { OperationCommand, OperationFlags } from '../engine/operation-types.js';
import { UsageError } from '../output/errors.js';
import type { ConfigOverride } from '../project/config-overrides.js';
import { addFlags, type FlagSpec } from './pulumi-flags.js';
import { toTargetFlags } from './target-flags.js';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return n;
}

const COLOR_MODES: readonly ColorMode[] = ['always', 'never', 'auto', 'raw'];

function colorMode(value: string): ColorMode {
  if (!(COLOR_MODES as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${COLOR_MODES.join(', ')}, got "${value}"`);
  return value as ColorMode;
}

/** `--wait` alone waits as long as it takes; `--wait=DURATION` (Go syntax: `90s`, `5m`, `1h30m`) at most that long. */
function waitDuration(value: string): number {
  const seconds = parseDurationSeconds(value);
  if (seconds === undefined) throw new InvalidArgumentError(`expected a duration such as 30s, 5m or 1h30m, got "${value}"`);
  return seconds * 1000;
}

/** `--refresh` alone means true; `--refresh=false` turns a project's `options.refresh: always` off (Go's ParseBool). */
export function boolValue(value: string): boolean {
  if (/^(1|t|true|TRUE|True)$/.test(value)) return true;
  if (/^(0|f|false|FALSE|False)$/.test(value)) return false;
  throw new InvalidArgumentError(`expected true or false, got "${value}"`);
}

/** How long `--wait-for-approval` without a duration waits. */
const DEFAULT_APPROVAL_WAIT_MS = 3_600_000;

const ALL: OperationCommand[] = ['preview', 'up', 'destroy', 'refresh'];
const LEASED: OperationCommand[] = ['up', 'destroy', 'refresh'];
const PROGRAM: OperationCommand[] = ['preview', 'up'];

const NO_CLOUD_AI = 'this Pulumi Cloud AI feature does not exist in stackyard';
const NO_AGENT = 'an internal flag of Pulumi Deployments agents';
const OWN_KEY = "each stack's secrets are always encrypted with the stack's own key, held by the backend";

/** A `pulumi` flag of some of the four commands. */
interface EngineFlag extends FlagSpec {
  commands: OperationCommand[];
}

/** Every `pulumi` flag of the four commands, as `pulumi` spells them (hidden ones left out, as in its help). */
const ENGINE_FLAGS: EngineFlag[] = [
  { flags: '-s, --stack <name>', description: 'the stack to operate on (default: the selected stack)', commands: ALL },
  { flags: '--diff', description: 'show changed properties of updates and replacements', commands: ALL },
  { flags: '-j, --json', description: 'print one JSON document instead of progress lines', commands: ALL },
  { flags: '-p, --parallel <n>', description: 'run at most this many resource operations at once', commands: ALL, parse: positiveInt },
  { flags: '-t, --target <urn>', description: 'operate on this resource only; repeatable; wildcards (*, **) are supported', commands: ALL, repeatable: true },
  { flags: '-m, --message <text>', description: 'message recorded with the update', commands: ALL },
  { flags: '-v, --verbose <level>', description: 'print engine debug diagnostics', commands: ALL },
  { flags: '-d, --debug', description: 'print debug diagnostics (as -v)', commands: ALL },
  { flags: '--color <mode>', description: 'colorize output: always, never, raw or auto (auto: on a terminal unless NO_COLOR is set)', commands: ALL, parse: colorMode },
  { flags: '--wait [duration]', description: 'if another update holds the stack, wait for it to finish (at most DURATION, e.g. 10m) instead of failing', commands: LEASED, parse: waitDuration },
  { flags: '-y, --yes', description: 'proceed without asking for confirmation (also PULUMI_SKIP_CONFIRMATIONS=true)', commands: LEASED },
  { flags: '-f, --skip-preview', description: 'do not preview before proceeding (implies --yes, as in pulumi)', commands: LEASED },
  { flags: '-r, --refresh [bool]', description: 'refresh the state before the operation (and its preview)', commands: ['preview', 'up', 'destroy'], parse: boolValue },
  { flags: '--expect-no-changes', description: 'fail if any change is proposed or made', commands: ['preview', 'up', 'refresh'] },
  { flags: '--preview-only', description: 'only preview, change nothing', commands: ['destroy', 'refresh'] },
  { flags: '--config-file <file>', description: 'use this file instead of Pulumi.<stack>.yaml', commands: ALL },
  { flags: '-c, --config <key=value>', description: 'set this config value in the stack file before running (repeatable)', commands: ALL, repeatable: true },
  { flags: '--config-path', description: '-c keys are property paths (a.b[0])', commands: ALL },
  { flags: '--show-config', description: 'show the configuration before running', commands: ['preview', 'up', 'destroy'] },
  { flags: '--show-sames', description: 'also show resources that do not change', commands: ALL },
  { flags: '--show-reads', description: 'also show resources that are read', commands: PROGRAM },
  { flags: '--show-replacement-steps', description: 'show the create and delete halves of each replacement', commands: ALL },
  { flags: '--show-full-output', description: 'never cut lines to the terminal width', commands: ['preview', 'up', 'destroy'] },
  { flags: '--suppress-outputs', description: 'do not print stack outputs', commands: ALL },
  { flags: '--suppress-progress', description: 'print one line per step instead of redrawing progress', commands: ALL },
  { flags: '--suppress-permalink [bool]', description: 'do not print the `View Live:` link to the web console (service backends)', commands: ALL },
  { flags: '--skip-plugin-pre-install', description: 'do not install missing plugins before the run (they are still installed when a provider starts)', commands: ALL },
  { flags: '--event-log <file>', description: 'also write each engine event, one JSON document a line, to this file', commands: ALL },
  { flags: '--remove', description: 'remove the stack and its config file after destroying it', commands: ['destroy'] },
  { flags: '--clear-pending-creates', description: 'clear interrupted creates from the state (stackyard always does, with a warning)', commands: ['refresh'] },
  { flags: '--target-dependents', description: 'also operate on the resources that depend on a --target', commands: ALL },
  { flags: '-x, --exclude <urn>', description: 'leave this resource (and what it depends on) alone; repeatable; wildcards (*, **) are supported', commands: ['preview', 'destroy', 'refresh'], repeatable: true },
  { flags: '--exclude <urn>', description: 'leave this resource (and what it depends on) alone; repeatable; wildcards (*, **) are supported', commands: ['up'], repeatable: true },
  { flags: '--exclude-dependents', description: 'also leave alone the resources that depend on an --exclude', commands: ['preview', 'up', 'refresh'] },
  { flags: '--replace <urn>', description: 'replace this resource even if it has no changes (repeatable)', commands: PROGRAM, repeatable: true },
  { flags: '--target-replace <urn>', description: 'replace this resource and operate on it only (repeatable)', commands: PROGRAM, repeatable: true },
  { flags: '--continue-on-error', description: 'keep going after a failed step, skipping only what depends on it (the run still fails)', commands: ['up', 'destroy'] },
  { flags: '--skip-config-validation', description: 'skip validation of stack config values against the project config schema (also PULUMI_OPTION_SKIP_CONFIG_VALIDATION=true)', commands: ALL },
  { flags: '--plan <file|id>', description: 'constrain the update to the operations of a plan saved by preview --save-plan, or uploaded by it to the service (refused when the stack, program or config moved on since, or not approved)', commands: ['up'] },
  { flags: '--allow-stale-plan', description: 'with --plan: apply the plan although the stack, program or config changed since it was made', commands: ['up'] },
  { flags: '--strict', description: 'constrain the update to the plan its own preview makes (cannot be used with --skip-preview)', commands: ['up'] },
  { flags: '--wait-for-approval [duration]', description: 'with --plan <id>: wait for the service to approve the plan (at most DURATION, default 1h) instead of failing', commands: ['up'], parse: waitDuration },
  { flags: '--save-plan <file>', description: 'save the operations proposed by the preview to a plan file at the given path', commands: ['preview'] },
  { flags: '--import-file <file>', description: "save the creates seen during the preview into an import file to use with 'stackyard import'", commands: ['preview'] },
  { flags: '--exclude-protected', description: 'do not destroy protected resources (nor what they depend on); destroy all others', commands: ['destroy'] },
  { flags: '--run-program [bool]', description: 'run the program to determine up-to-date state for providers to refresh resources (also PULUMI_RUN_PROGRAM=true)', commands: ['refresh'], parse: boolValue },
  { flags: '--run-program [bool]', description: 'run the program to determine up-to-date state for providers to refresh resources, this only applies if --refresh is set (also PULUMI_RUN_PROGRAM=true)', commands: PROGRAM, parse: boolValue },
  { flags: '--run-program [bool]', description: 'run the program to determine up-to-date state for providers to destroy resources (also PULUMI_RUN_PROGRAM=true)', commands: ['destroy'], parse: boolValue },
  { flags: '--policy-pack <path>', description: 'run the policy pack in this folder as part of the operation (repeatable; docs/policy.md)', commands: PROGRAM, repeatable: true },
  { flags: '--policy-pack-config <path>', description: 'a JSON config file for the --policy-pack at the same position (repeatable)', commands: PROGRAM, repeatable: true },
  { flags: '--show-policy-remediations', description: 'show each policy remediation in the Policies section', commands: PROGRAM },
  // Refused: they need something stackyard does not have.
  { flags: '--skip-pending-creates', description: 'leave interrupted creates in the state', commands: ['refresh'], refused: 'refresh always resolves pending operations; `stackyard state repair` clears them without refreshing' },
  { flags: '--import-pending-creates <pairs>', description: 'import interrupted creates by id', commands: ['refresh'], repeatable: true, refused: 'refresh clears interrupted creates with a warning naming them; adopt the resource afterwards with `stackyard import`' },
  { flags: '--ignore-protect', description: 'delete protected resources too', commands: ['preview', 'up', 'destroy'], refused: 'unprotect them first with `stackyard state unprotect`' },
  { flags: '--show-secrets', description: 'show secret values in plaintext', commands: PROGRAM, refused: 'secrets are always shown as [secret]; read them with `stackyard stack output --show-secrets`' },
  { flags: '--urns', description: 'show URNs instead of names', commands: ALL, refused: 'list URNs with `stackyard stack --show-urns`' },
  { flags: '--attach-debugger [what]', description: 'wait for a debugger', commands: PROGRAM, refused: 'stackyard does not run programs or plugins under a debugger' },
  { flags: '--secrets-provider <provider>', description: 'secrets provider for a new stack', commands: ['up'], refused: OWN_KEY },
  { flags: '--client <address>', description: 'the address of a language runtime client', commands: ALL, refused: 'stackyard starts the Node.js program itself; it has no Automation API client mode' },
  { flags: '--neo', description: 'Pulumi Neo features', commands: ALL, refused: NO_CLOUD_AI },
  { flags: '--copilot', description: 'Pulumi Copilot features', commands: ALL, refused: NO_CLOUD_AI },
  { flags: '--neo-task-on-failure', description: 'open a Neo task on failure', commands: PROGRAM, refused: NO_CLOUD_AI },
  { flags: '--exec-kind <kind>', description: 'execution kind (internal)', commands: ALL, refused: NO_AGENT },
  { flags: '--exec-agent <agent>', description: 'execution agent (internal)', commands: ALL, refused: NO_AGENT },
];

/** The flags of `up` that Pulumi's `watch` takes (refused ones stay refused). */
const WATCH_FLAGS = new Set(['--stack', '--debug', '--config-file', '--config', '--config-path', '--message', '--parallel', '--refresh', '--show-config', '--show-replacement-steps', '--show-sames', '--skip-plugin-pre-install', '--policy-pack', '--policy-pack-config', '--urns', '--secrets-provider']);

/** `watch`'s flags: those `up` flags, each handed on to every `up` it runs, and the paths to watch. */
export function watchFlags(): FlagSpec[] {
  return [
    ...ENGINE_FLAGS.filter((f) => f.commands.includes('up') && WATCH_FLAGS.has(/--[\w-]+/.exec(f.flags)![0])),
    { flags: '--path <path>', description: 'a file or folder to watch (repeatable; relative to the project folder; default: the project folder)', repeatable: true },
  ];
}

/** Declares every `pulumi` flag of `command` on `cmd`. */
export function addEngineFlags(cmd: Command, command: OperationCommand): Command {
  return addFlags(cmd, ENGINE_FLAGS.filter((f) => f.commands.includes(command)));
}

/** The flags that change the stack's config file before a run. */
export interface ConfigFlags {
  overrides: ConfigOverride[];
  path: boolean;
  file?: string;
}

/** Reads `-c`, `--config-path` and `--config-file`. */
export function toConfigFlags(opts: Record<string, unknown>): ConfigFlags {
  const overrides = (Array.isArray(opts.config) ? (opts.config as string[]) : []).map((text) => {
    const i = text.indexOf('=');
    return i < 0 ? { key: text, value: '' } : { key: text.slice(0, i), value: text.slice(i + 1) };
  });
  if (overrides.some((o) => o.key === '')) throw new UsageError('-c/--config needs a key: -c <key>=<value>');
  return { overrides, path: opts.configPath === true, file: typeof opts.configFile === 'string' ? opts.configFile : undefined };
}

/** `PULUMI_SKIP_CONFIRMATIONS` as Go's `strconv.ParseBool` reads it. */
function skipConfirmations(env: NodeJS.ProcessEnv): boolean {
  return /^(1|t|true|TRUE|True)$/.test(env.PULUMI_SKIP_CONFIRMATIONS ?? '') || /^(1|t|true|TRUE|True)$/.test(env.STACKYARD_SKIP_CONFIRMATIONS ?? '');
}

/** `--skip-config-validation`, or `PULUMI_OPTION_SKIP_CONFIG_VALIDATION` as Go's `strconv.ParseBool` reads it. */
export function skipConfigValidation(opts: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): boolean {
  return opts.skipConfigValidation === true || /^(1|t|true|TRUE|True)$/.test(env.PULUMI_OPTION_SKIP_CONFIG_VALIDATION ?? '');
}

/**
 * `-v <level>` as a number (cobra's `-v=3` reaches commander as `=3`); a level that is no number still turns debug
 * diagnostics on, at level 1, as it always has.
 */
function verbosity(value: unknown): number {
  if (value === undefined) return 0;
  const m = /^=?(\d+)$/.exec(String(value));
  return m ? Number(m[1]) : 1;
}

/** `--run-program[=bool]`, defaulting to `PULUMI_RUN_PROGRAM` as Go's `strconv.ParseBool` reads it (Pulumi's `env.RunProgram`). */
function runProgram(opts: Record<string, unknown>, env: NodeJS.ProcessEnv): boolean {
  if (opts.runProgram === true || opts.runProgram === false) return opts.runProgram;
  return /^(1|t|true|TRUE|True)$/.test(env.PULUMI_RUN_PROGRAM ?? '');
}

/** `--policy-pack` with `--policy-pack-config` paired by position, checked as Pulumi's `validatePolicyPackConfig`. */
function policyPacksOf(opts: Record<string, unknown>): { path: string; configFile?: string }[] | undefined {
  const paths = Array.isArray(opts.policyPack) ? (opts.policyPack as string[]) : [];
  const configs = Array.isArray(opts.policyPackConfig) ? (opts.policyPackConfig as string[]) : [];
  if (configs.length && !paths.length) throw new UsageError('"--policy-pack-config" must be specified with "--policy-pack"');
  if (configs.length && configs.length !== paths.length) throw new UsageError('the number of "--policy-pack-config" flags must match the number of "--policy-pack" flags');
  return paths.length ? paths.map((path, i) => ({ path, ...(configs[i] ? { configFile: configs[i] } : {}) })) : undefined;
}

/** `--wait-for-approval` alone waits up to an hour; it only makes sense with `--plan`. */
function approvalWait(opts: Record<string, unknown>): { timeoutMs: number } | undefined {
  if (opts.waitForApproval === undefined) return undefined;
  if (typeof opts.plan !== 'string') throw new UsageError('--wait-for-approval waits for the approval of a plan: pass --plan <id|file> too');
  return { timeoutMs: typeof opts.waitForApproval === 'number' ? opts.waitForApproval : DEFAULT_APPROVAL_WAIT_MS };
}

/** `--strict` needs the preview whose plan it keeps to (Pulumi's check and message). */
function strictPlan(opts: Record<string, unknown>, skipPreview: boolean): boolean {
  if (opts.strict === true && skipPreview) throw new UsageError('--strict cannot be used with --skip-preview; strict requires a preview');
  return opts.strict === true;
}

/** Maps parsed options to engine flags (refused flags never get here: see `assertNoRefusedFlags`). */
export function toOperationFlags(opts: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): { flags: OperationFlags; previewOnly: boolean; remove: boolean } {
  const skipPreview = opts.skipPreview === true;
  const flags: OperationFlags = {
    // As `pulumi`: --skip-preview and PULUMI_SKIP_CONFIRMATIONS both mean "do not ask".
    yes: opts.yes === true || skipPreview || skipConfirmations(env),
    skipPreview,
    diff: opts.diff === true,
    json: opts.json === true,
    ...toTargetFlags(opts),
    refresh: opts.refresh === true ? true : opts.refresh === false ? false : undefined,
    expectNoChanges: opts.expectNoChanges === true,
    parallel: typeof opts.parallel === 'number' ? opts.parallel : undefined,
    verbose: opts.verbose !== undefined || opts.debug === true,
    color: typeof opts.color === 'string' ? (opts.color as ColorMode) : undefined,
    wait: opts.wait === true ? { timeoutMs: Number.POSITIVE_INFINITY } : typeof opts.wait === 'number' ? { timeoutMs: opts.wait } : undefined,
    display: {
      showSames: opts.showSames === true,
      showReads: opts.showReads === true,
      showReplacementSteps: opts.showReplacementSteps === true,
      showConfig: opts.showConfig === true,
      showFullOutput: opts.showFullOutput === true,
      suppressOutputs: opts.suppressOutputs === true,
      suppressProgress: opts.suppressProgress === true,
      suppressPermalink: opts.suppressPermalink === true || opts.suppressPermalink === 'true',
      showPolicyRemediations: opts.showPolicyRemediations === true,
    },
    policyPacks: policyPacksOf(opts),
    eventLog: typeof opts.eventLog === 'string' ? opts.eventLog : undefined,
    skipPluginPreInstall: opts.skipPluginPreInstall === true,
    savePlan: typeof opts.savePlan === 'string' ? opts.savePlan : undefined,
    plan: typeof opts.plan === 'string' ? opts.plan : undefined,
    allowStalePlan: opts.allowStalePlan === true,
    waitForApproval: approvalWait(opts),
    strict: strictPlan(opts, skipPreview),
    runProgram: runProgram(opts, env),
    logging: { verbosity: verbosity(opts.verbose), toStderr: opts.logtostderr === true, flow: opts.logflow === true },
  };
  return { flags, previewOnly: opts.previewOnly === true, remove: opts.remove === true };
}
