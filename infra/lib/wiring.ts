import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Duration } from 'aws-cdk-lib';
import { TTL_ATTRIBUTE, stackyardTableDefinition } from '../../shared/adapters/aws/index.js';
import { outboxPk } from '../../shared/adapters/aws/keys.js';
import { HANDLER_NAMES as FUNCTION_NAMES, routeBindings } from '../../functions/http/routes/index.js';
import { DEAD_LETTER_METRIC, DEPLOYMENT_VARIABLE, HOOK_FUNCTION_ARNS_VARIABLE } from '../../functions/hook-settings.js';
import type { HandlerGroup } from '../../functions/http/router.js';
import { dataKeyContext } from '../../shared/core/secrets/secrets-envelope.js';
import { HOOK_SECRET_PURPOSE, hookSecretContext } from '../../shared/core/hooks/hook-secrets.js';
import type { HandlerSpec } from './constructs/api-functions.js';
import type { RunnerWiring } from './constructs/codebuild-runner.js';
import { RUNNER_PROJECT_VARIABLE } from '../../shared/adapters/aws/codebuild-build-starter.js';
import { RUN_TOKEN_PURPOSE, runTokenContext } from '../../shared/adapters/aws/run-token-seal.js';
import { RUN_ID_VARIABLE } from '../../functions/runner/launcher.js';
import type { HookWiring } from './constructs/hook-dispatcher.js';
import type { ScheduleFiringWiring } from './constructs/schedule-firing.js';
import { SCHEDULE_FIRE_ARN_VARIABLE, SCHEDULE_GROUP_VARIABLE, SCHEDULER_ROLE_ARN_VARIABLE } from '../../shared/adapters/aws/eventbridge-schedule-triggers.js';
import { RUN_QUEUE_URL_VARIABLE } from '../../shared/adapters/aws/sqs-run-queue.js';
import type { StackyardWiring } from './stacks/stackyard-stack.js';

/**
 * Encryption-context keys the core puts on every data key (the stack's immutable id, see docs/storage-aws.md), read
 * from the core itself. The functions' KMS permission is conditioned on exactly these keys.
 */
export const DATA_KEY_CONTEXT_KEYS: readonly string[] = Object.keys(dataKeyContext('any-stack-id'));

/** The storage half of the wiring, taken from the AWS adapter so the table cannot drift from the code. */
export function storageWiring(): Pick<StackyardWiring, 'keyDesign' | 'timeToLiveAttribute' | 'encryptionContextKeys'> {
  return {
    keyDesign: stackyardTableDefinition('stackyard'),
    timeToLiveAttribute: TTL_ATTRIBUTE,
    encryptionContextKeys: DATA_KEY_CONTEXT_KEYS,
  };
}

const handlerEntry = (group: HandlerGroup): string =>
  fileURLToPath(new URL(`../../functions/handlers/${group}.ts`, import.meta.url));

/**
 * Memory buys CPU in Lambda (1,769 MB is one vCPU), and a request is billed by memory × duration, so a CPU-bound
 * request costs about the same at any size while finishing sooner at a larger one. What decides the size is the
 * largest payload a function parses:
 * - updates and stacks take and return whole deployments (checkpoints, import, export, rename's state rewrite): up to
 *   about 4.4 MB gzipped, tens of MB of JSON once parsed. 1024 MB leaves headroom for that and cuts cold starts.
 * - secrets decrypts batches of config and state secrets under KMS data keys: 1024 MB because batch-decrypt sits on
 *   the critical path of every `pulumi up` and `preview`, and its cold start is what the user waits for.
 * - identity answers small JSON from DynamoDB (user, organizations, tokens): 512 MB is plenty.
 *
 * Timeouts: the HTTP API integration gives up at 29 s, so the heavy functions stop at 28 s; their own timeout is then
 * logged, instead of a function running on after the client was already told 503 and retried. Identity's calls are
 * a few DynamoDB reads and writes; 10 s stops a stuck one long before the client's patience runs out.
 */
const HEAVY = { memorySize: 1024, timeout: Duration.seconds(28) } as const;
const LIGHT = { memorySize: 512, timeout: Duration.seconds(10) } as const;
const SIZING: Record<HandlerGroup, Pick<HandlerSpec, 'memorySize' | 'timeout'>> = {
  identity: LIGHT,
  stacks: HEAVY,
  updates: HEAVY,
  secrets: HEAVY,
};

/** The web console's build, served by the identity function: API Gateway's `$default` route (docs/console.md). */
const CONSOLE_DIR = fileURLToPath(new URL('../../dist/console', import.meta.url));

/** One function per handler group, entry `functions/handlers/<group>.ts`; each bundles the whole router. */
function handlerSpecs(): HandlerSpec[] {
  return (Object.keys(SIZING) as HandlerGroup[]).map((group) => ({
    name: FUNCTION_NAMES[group],
    entry: handlerEntry(group),
    ...SIZING[group],
    ...(group === 'identity' ? { consoleDir: CONSOLE_DIR } : {}),
  }));
}

/**
 * The hook dispatcher (`functions/handlers/hook-dispatcher.ts`) and what the infra must agree on with the code: the
 * outbox key prefix the stream filter matches, the variables the functions read, the metric the alarm watches.
 */
export function hookWiring(): HookWiring {
  return {
    dispatcher: {
      name: 'HookDispatcher',
      entry: fileURLToPath(new URL('../../functions/handlers/hook-dispatcher.ts', import.meta.url)),
    },
    outboxKeyPrefix: outboxPk(''),
    functionArnsVariable: HOOK_FUNCTION_ARNS_VARIABLE,
    deploymentVariable: DEPLOYMENT_VARIABLE,
    deadLetterMetric: DEAD_LETTER_METRIC,
    secretContext: { purpose: HOOK_SECRET_PURPOSE, keys: Object.keys(hookSecretContext({ org: 'any-org' }, 'any-hook')) },
    keyIdVariable: 'STACKYARD_KMS_KEY_ID',
  };
}

/**
 * The whole wiring of a real deployment: the handlers, the API's own route table (one route per API call, grouped
 * by concern, plus `$default` for everything else: the same table the router matches, so the two cannot drift), the
 * hook dispatcher, and the storage.
 */
export function apiWiring(): StackyardWiring {
  return { handlers: handlerSpecs(), routes: routeBindings(), hooks: hookWiring(), runner: runnerWiring(), schedules: scheduleWiring(), ...storageWiring() };
}

/** Packages the CLI bundle leaves external (scripts/externals.mjs), which a runner build installs at these pins. */
const CLI_EXTERNALS = ['@pulumi/pulumi', '@grpc/grpc-js', 'google-protobuf'];

/**
 * Runner builds (docs/deployments.md, "On AWS"): the launcher's entry, the built CLI (`npm run build` → dist/cli)
 * as every build's source, the CLI's external packages at the pins of package.json, and the names the code reads.
 */
export function runnerWiring(): RunnerWiring {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { dependencies: Record<string, string> };
  return {
    launcher: { name: 'RunLauncher', entry: fileURLToPath(new URL('../../functions/handlers/run-launcher.ts', import.meta.url)) },
    bundleDir: fileURLToPath(new URL('../../dist/cli', import.meta.url)),
    externals: CLI_EXTERNALS.map((name) => `${name}@${pkg.dependencies[name]}`),
    projectVariable: RUNNER_PROJECT_VARIABLE,
    serviceUrlVariable: 'STACKYARD_RUNNER_SERVICE_URL',
    runIdVariable: RUN_ID_VARIABLE,
    tokenContext: { purpose: RUN_TOKEN_PURPOSE, keys: Object.keys(runTokenContext('any-run')) },
  };
}

/** Stack schedules on EventBridge Scheduler (docs/deployments.md, "Schedules on AWS"): the fire function and the names the code reads. */
export function scheduleWiring(): ScheduleFiringWiring {
  return {
    fire: { name: 'ScheduleFire', entry: fileURLToPath(new URL('../../functions/handlers/schedule-fire.ts', import.meta.url)) },
    groupVariable: SCHEDULE_GROUP_VARIABLE,
    fireArnVariable: SCHEDULE_FIRE_ARN_VARIABLE,
    roleArnVariable: SCHEDULER_ROLE_ARN_VARIABLE,
    runQueueVariable: RUN_QUEUE_URL_VARIABLE,
  };
}
