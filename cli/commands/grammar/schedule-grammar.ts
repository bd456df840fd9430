/**
 * `stack schedule`: a stack's scheduled deployments, in `pulumi stack schedule`'s grammar (pkg/cmd/pulumi/stack:
 * list, new, get, edit, remove), plus Stackyard's own `pause` and `resume`; docs/deployments.md, "Schedules".
 */
import type { Command } from 'commander';
import { boolValue } from '../engine-flags.js';
import type { FlagSpec } from '../pulumi-flags.js';
import { STACK_FLAG, group, integer, leaf } from './tree.js';

const show = () => import('../schedule/schedule-show.js');

const OUTPUT_FLAG: FlagSpec = { flags: '--output <format>', description: 'output format: default or json' };
const CRON_FLAG: FlagSpec = { flags: '--cron <expression>', description: "cron expression for recurring executions, evaluated in UTC (e.g. '0 */4 * * *')" };
const ONCE_FLAG: FlagSpec = { flags: '--once <timestamp>', description: "ISO 8601 timestamp for a one-time execution (e.g. '2026-12-31T23:59:00Z')" };
const OPERATION_FLAG: FlagSpec = { flags: '--operation <operation>', description: '(raw only) Pulumi operation to run: update, preview, refresh or destroy' };
const REMEDIATE_FLAG: FlagSpec = { flags: '--auto-remediate [bool]', description: '(drift only) run a remediation update when drift is detected', parse: boolValue };
const DELETE_FLAG: FlagSpec = { flags: '--delete-after-destroy [bool]', description: '(ttl only) delete the stack after its resources are destroyed', parse: boolValue };

export function registerStackScheduleGrammar(stack: Command): void {
  group(stack, 'schedule', 'Manage scheduled deployment actions for a stack (docs/deployments.md)', (schedule) => {
    leaf(schedule, 'list', 'List all scheduled actions configured for a stack', [
      STACK_FLAG,
      OUTPUT_FLAG,
      { flags: '--count <n>', description: 'show only the first N schedules; 0 (the default) shows all', parse: integer },
    ], async () => (await show()).stackScheduleList).alias('ls');
    leaf(schedule, 'new', 'Create a scheduled deployment action for a stack (--kind raw, drift or ttl)', [
      STACK_FLAG,
      OUTPUT_FLAG,
      { flags: '--kind <kind>', description: 'schedule kind (required): raw, drift or ttl' },
      CRON_FLAG,
      ONCE_FLAG,
      OPERATION_FLAG,
      REMEDIATE_FLAG,
      DELETE_FLAG,
      { flags: '-y, --yes', description: 'skip prompts; fail if any required value is missing (stackyard never prompts here)' },
    ], async () => (await import('../schedule/schedule-new.js')).stackScheduleNew).aliases(['create', 'setup']);
    leaf(schedule, 'get <schedule-id>', 'Retrieve the configuration of a stack schedule', [STACK_FLAG, OUTPUT_FLAG], async () => (await show()).stackScheduleGet);
    leaf(schedule, 'edit <schedule-id>', 'Update the configuration of a scheduled deployment action (only the fields passed)', [
      STACK_FLAG,
      OUTPUT_FLAG,
      CRON_FLAG,
      ONCE_FLAG,
      OPERATION_FLAG,
      REMEDIATE_FLAG,
      DELETE_FLAG,
    ], async () => (await import('../schedule/schedule-edit.js')).stackScheduleEdit).aliases(['update', 'modify']);
    leaf(schedule, 'pause <schedule-id>', "Pause a schedule: it queues nothing until resumed (stackyard's own)", [STACK_FLAG, OUTPUT_FLAG], async () => (await show()).stackSchedulePause);
    leaf(schedule, 'resume <schedule-id>', "Resume a paused schedule at its next time from now (stackyard's own)", [STACK_FLAG, OUTPUT_FLAG], async () => (await show()).stackScheduleResume);
    leaf(schedule, 'remove <schedule-id>', 'Delete a scheduled deployment action', [
      STACK_FLAG,
      { flags: '-y, --yes', description: 'skip confirmation prompts' },
    ], async () => (await show()).stackScheduleRemove).aliases(['rm', 'delete']);
  });
}

/** `stack drift`: a stack's drift detection results, in `pulumi stack drift`'s grammar (list, status). */
export function registerStackDriftGrammar(stack: Command): void {
  const drift = () => import('../drift/stack-drift.js');
  group(stack, 'drift', 'Inspect stack drift detection results (docs/deployments.md)', (driftCmd) => {
    leaf(driftCmd, 'list', 'List drift detection runs for a stack (the first 10 unless --count or --all)', [
      STACK_FLAG,
      OUTPUT_FLAG,
      { flags: '--count <n>', description: 'number of results to display (fetches multiple pages if needed)', parse: integer },
      { flags: '--all', description: 'fetch all results (mutually exclusive with --count)' },
    ], async () => (await drift()).stackDriftList).alias('ls');
    leaf(driftCmd, 'status', 'Show the current drift detection status for a stack', [STACK_FLAG, OUTPUT_FLAG], async () => (await drift()).stackDriftStatus);
  });
}
