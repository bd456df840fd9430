/**
 * No flag is accepted and ignored: walks the whole command tree and checks that every flag is either refused (using
 * it fails with exit code 2 and the reason before the command runs) or implemented, and that each implemented flag
 * of `preview`, `up`, `refresh`, `destroy`, `stack`, `config`, `state`, `login` and the everyday commands (`version`,
 * `logs`, `convert`, …) is exercised by the test file listed here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { declareTree } from '../../../cli/commands/lazy-tree.js';
import { refusalReason } from '../../../cli/commands/pulumi-flags.js';
import { UsageError } from '../../../cli/output/errors.js';
import { createProgram } from '../../../cli/program.js';

const REPO = join(import.meta.dirname, '../../..');
const HERE = 'test/engine/conformance';
const CLI_FLAGS = `${HERE}/cli-flags.test.ts`;
const DISPLAY_FLAGS = `${HERE}/display-flags.test.ts`;
const COMMAND_FLAGS = `${HERE}/command-flags.test.ts`;
const ENGINE_FLAGS = 'cli/commands/engine-flags.test.ts';
const LOCAL_ENGINE = 'test/cli/local-engine.test.ts';
const LOCAL_BACKEND = 'test/cli/local-backend.test.ts';
const SERVE_BACKEND = 'test/cli/serve-backend.test.ts';
const STATE_COMMANDS = `${HERE}/state-commands.test.ts`;
const OIDC_EXCHANGE = 'test/oidc/oidc-exchange.test.ts';

const COMMAND_GRAMMAR = 'test/cli/command-grammar.test.ts';
const CONFIG_COMMANDS = 'test/cli/config-commands.test.ts';
const STACK_GRAPH = 'test/cli/stack-graph.test.ts';
const NEW = 'test/cli/new-command.test.ts';
const WATCH = 'test/cli/watch.test.ts';
const IMPORT = 'test/cli/import-command.test.ts';
const ENV_COMMANDS = 'test/cli/env-commands.test.ts';
const SCHEDULES = 'test/api/serve-schedules.test.ts';
const DRIFT = 'test/api/serve-drift.test.ts';

/** The commands whose implemented flags must each name the test that exercises them. */
const AUDITED = /^(preview|up|refresh|destroy|import|stack|config|state|login|version|logs|convert|new|watch|gen-completion|env)( |$)|^org( get-default| set-default)?$/;

/** Implemented flag → the test file exercising it (`<command path> <flag>` for one command, or the flag for all). */
const EXERCISED: Record<string, string> = {
  '--stack': LOCAL_BACKEND,
  '--cwd': LOCAL_BACKEND,
  '--color': ENGINE_FLAGS,
  '--non-interactive': COMMAND_FLAGS,
  '--logflow': CLI_FLAGS,
  '--run-program': 'test/cli/project-config.test.ts',
  '--logtostderr': CLI_FLAGS,
  // preview, up, refresh, destroy
  '--diff': 'test/e2e/secrets-at-rest.test.ts',
  '--json': LOCAL_BACKEND,
  '--parallel': ENGINE_FLAGS,
  '--target': ENGINE_FLAGS,
  '--message': CLI_FLAGS,
  '--verbose': CLI_FLAGS,
  '--debug': CLI_FLAGS,
  '--wait': ENGINE_FLAGS,
  '--yes': CLI_FLAGS,
  '--skip-preview': CLI_FLAGS,
  '--refresh': CLI_FLAGS,
  '--expect-no-changes': CLI_FLAGS,
  '--preview-only': ENGINE_FLAGS,
  '--config-file': CLI_FLAGS,
  '--config': CLI_FLAGS,
  '--config-path': CLI_FLAGS,
  '--show-config': CLI_FLAGS,
  '--show-sames': CLI_FLAGS,
  '--show-reads': DISPLAY_FLAGS,
  '--show-replacement-steps': CLI_FLAGS,
  '--show-full-output': DISPLAY_FLAGS,
  '--suppress-outputs': CLI_FLAGS,
  '--suppress-progress': DISPLAY_FLAGS,
  '--suppress-permalink': CLI_FLAGS,
  '--skip-plugin-pre-install': CLI_FLAGS,
  '--event-log': CLI_FLAGS,
  '--skip-config-validation': 'test/cli/project-config.test.ts',
  '--remove': CLI_FLAGS,
  '--clear-pending-creates': CLI_FLAGS,
  // the engine's targeting and replacement flags (issue 14, helper e14)
  '--target-dependents': `${HERE}/targets.test.ts`,
  '--exclude': `${HERE}/targets.test.ts`,
  '--exclude-dependents': `${HERE}/targets.test.ts`,
  '--exclude-protected': `${HERE}/targets.test.ts`,
  '--replace': `${HERE}/replace.test.ts`,
  '--target-replace': `${HERE}/replace.test.ts`,
  '--continue-on-error': `${HERE}/continue-on-error.test.ts`,
  '--policy-pack': `${HERE}/policy-failures.test.ts`,
  '--policy-pack-config': `${HERE}/policy-failures.test.ts`,
  '--show-policy-remediations': `${HERE}/policy-levels.test.ts`,
  'preview --import-file': IMPORT,
  'preview --save-plan': 'test/cli/update-plans.test.ts',
  'up --plan': 'test/cli/update-plans.test.ts',
  'up --allow-stale-plan': 'test/cli/update-plans.test.ts',
  'up --wait-for-approval': 'test/cli/plan-approvals.test.ts',
  'up --strict': 'test/cli/update-plans.test.ts',
  // import (its engine flags are those of preview and up)
  'import --file': IMPORT,
  'import --out': IMPORT,
  'import --parent': IMPORT,
  'import --provider': IMPORT,
  'import --properties': IMPORT,
  'import --protect': IMPORT,
  'import --generate-code': IMPORT,
  'import --preview-only': IMPORT,
  'import --message': IMPORT,
  'import --yes': IMPORT,
  'import --skip-preview': IMPORT,
  // stack
  'stack --show-ids': COMMAND_FLAGS,
  'stack --show-name': COMMAND_FLAGS,
  'stack --show-urns': COMMAND_FLAGS,
  'stack --show-secrets': SERVE_BACKEND,
  'stack init --copy-config-from': LOCAL_BACKEND,
  'stack init --no-select': COMMAND_FLAGS,
  'stack init --teams': 'test/cli/access-cli.test.ts',
  'stack init --remote-config': 'test/cli/remote-config.test.ts',
  'stack permission set --user': 'test/cli/access-cli.test.ts',
  'stack ls --all': COMMAND_FLAGS,
  'stack ls --organization': COMMAND_FLAGS,
  'stack ls --project': COMMAND_FLAGS,
  'stack ls --tag': COMMAND_FLAGS,
  'stack select --create': COMMAND_FLAGS,
  'stack rm --force': LOCAL_BACKEND,
  'stack rm --preserve-config': COMMAND_FLAGS,
  'stack output --show-secrets': LOCAL_BACKEND,
  'stack export --file': SERVE_BACKEND,
  'stack export --show-secrets': LOCAL_ENGINE,
  'stack export --version': LOCAL_BACKEND,
  'stack import --file': LOCAL_BACKEND,
  'stack import --force': LOCAL_BACKEND,
  'stack history --full-dates': COMMAND_FLAGS,
  'stack history --page': COMMAND_FLAGS,
  'stack history --page-size': COMMAND_FLAGS,
  'stack history --show-secrets': LOCAL_BACKEND,
  'stack rollback --to': 'test/cli/rollback.test.ts',
  'stack diff --show-secrets': 'test/cli/stack-diff.test.ts',
  'stack graph --ignore-parent-edges': STACK_GRAPH,
  'stack graph --ignore-dependency-edges': STACK_GRAPH,
  'stack graph --dependency-edge-color': STACK_GRAPH,
  'stack graph --parent-edge-color': STACK_GRAPH,
  'stack graph --short-node-name': STACK_GRAPH,
  'stack graph --dot-fragment': STACK_GRAPH,
  // config
  'config --show-secrets': LOCAL_BACKEND,
  'config --version': 'test/cli/config-version.test.ts',
  'config get --path': LOCAL_BACKEND,
  'config set --path': LOCAL_BACKEND,
  'config set --secret': LOCAL_BACKEND,
  'config set --plaintext': COMMAND_FLAGS,
  'config set --type': COMMAND_FLAGS,
  'config rm --path': LOCAL_BACKEND,
  'config copy --path': CONFIG_COMMANDS,
  'config copy --dest': CONFIG_COMMANDS,
  'config set-all --path': CONFIG_COMMANDS,
  'config set-all --plaintext': CONFIG_COMMANDS,
  'config set-all --secret': CONFIG_COMMANDS,
  'config set-all --json': CONFIG_COMMANDS,
  'config refresh --force': CONFIG_COMMANDS,
  'config env list --output': 'test/cli/config-env.test.ts',
  'config env init --env': 'test/cli/config-env.test.ts',
  'config env init --show-secrets': 'test/cli/config-env.test.ts',
  'config env init --keep-config': 'test/cli/config-env.test.ts',
  'config env add --show-secrets': 'test/cli/config-env.test.ts',
  'config env remove --show-secrets': 'test/cli/config-env.test.ts',
  'config --open': 'test/cli/config-open.test.ts',
  'config get --open': 'test/cli/config-open.test.ts',
  // state
  'state delete --all': COMMAND_FLAGS,
  'state delete --force': LOCAL_BACKEND,
  'state delete --target-dependents': LOCAL_BACKEND,
  'state unprotect --all': COMMAND_FLAGS,
  'state protect --all': STATE_COMMANDS,
  'state untaint --all': STATE_COMMANDS,
  'state move --source': STATE_COMMANDS,
  'state move --dest': STATE_COMMANDS,
  'state move --include-parents': STATE_COMMANDS,
  // new
  'new --config': NEW,
  'new --config-path': NEW,
  'new --description': NEW,
  'new --dir': NEW,
  'new --force': NEW,
  'new --generate-only': NEW,
  'new --name': NEW,
  'new --offline': NEW,
  'new --stack': NEW,
  'new --yes': NEW,
  // watch (its other flags are up's, handed on)
  'watch --path': WATCH,
  'watch --config': WATCH,
  // the commands stackyard has only in name
  'logs --follow': COMMAND_GRAMMAR,
  'logs --since': COMMAND_GRAMMAR,
  'logs --resource': COMMAND_GRAMMAR,
  // env (ESC's grammar)
  'env init --env': ENV_COMMANDS,
  'env init --file': ENV_COMMANDS,
  'env ls --organization': ENV_COMMANDS,
  'env ls --project': ENV_COMMANDS,
  'env ls --output': ENV_COMMANDS,
  'env rm --env': ENV_COMMANDS,
  'env rm --yes': ENV_COMMANDS,
  'env clone --env': ENV_COMMANDS,
  'env clone --preserve-history': ENV_COMMANDS,
  'env clone --preserve-access': ENV_COMMANDS,
  'env clone --preserve-rev-tags': ENV_COMMANDS,
  'env get --env': ENV_COMMANDS,
  'env get --definition': ENV_COMMANDS,
  'env get --value': ENV_COMMANDS,
  'env get --show-secrets': ENV_COMMANDS,
  'env diff --env': ENV_COMMANDS,
  'env diff --format': ENV_COMMANDS,
  'env diff --show-secrets': ENV_COMMANDS,
  'env diff --path': ENV_COMMANDS,
  'env set --env': ENV_COMMANDS,
  'env set --secret': ENV_COMMANDS,
  'env set --plaintext': ENV_COMMANDS,
  'env set --string': ENV_COMMANDS,
  'env set --file': ENV_COMMANDS,
  'env edit --env': ENV_COMMANDS,
  'env edit --editor': ENV_COMMANDS,
  'env edit --file': ENV_COMMANDS,
  'env edit --show-secrets': ENV_COMMANDS,
  'env open --env': ENV_COMMANDS,
  'env open --lifetime': ENV_COMMANDS,
  'env open --format': ENV_COMMANDS,
  'env run --env': ENV_COMMANDS,
  'env run --interactive': ENV_COMMANDS,
  'env run --lifetime': ENV_COMMANDS,
  'env version --env': ENV_COMMANDS,
  'env version --utc': ENV_COMMANDS,
  'env version history --env': ENV_COMMANDS,
  'env version history --utc': ENV_COMMANDS,
  'env version history --output': ENV_COMMANDS,
  'env version rollback --env': ENV_COMMANDS,
  'env version tag --env': ENV_COMMANDS,
  'env version tag --utc': ENV_COMMANDS,
  'env version tag ls --env': ENV_COMMANDS,
  'env version tag ls --utc': ENV_COMMANDS,
  'env version tag ls --output': ENV_COMMANDS,
  'env version tag rm --env': ENV_COMMANDS,
  // login
  'login --local': LOCAL_BACKEND,
  'login --default-org': 'test/cli/org-default.test.ts',
  'login --cloud-url': OIDC_EXCHANGE,
  'login --oidc-token': OIDC_EXCHANGE,
  'login --oidc-org': OIDC_EXCHANGE,
  'login --oidc-team': OIDC_EXCHANGE,
  'login --oidc-user': 'cli/commands/oidc-login.test.ts',
  'login --oidc-expiration': OIDC_EXCHANGE,
  'stack schedule new --output': SCHEDULES,
  'stack schedule new --kind': SCHEDULES,
  'stack schedule new --cron': SCHEDULES,
  'stack schedule new --once': SCHEDULES,
  'stack schedule new --operation': SCHEDULES,
  'stack schedule new --auto-remediate': SCHEDULES,
  'stack schedule new --delete-after-destroy': SCHEDULES,
  'stack schedule edit --output': SCHEDULES,
  'stack schedule edit --cron': SCHEDULES,
  'stack schedule edit --auto-remediate': SCHEDULES,
  'stack drift list --output': DRIFT,
  'stack drift list --count': DRIFT,
  'stack drift list --all': DRIFT,
  'stack drift status --output': LOCAL_BACKEND,
};

/**
 * Implemented flags no test exercises yet, each with whose it is: listed so the gap is visible (the test fails when
 * one gets a test, so it moves to EXERCISED, or when a new untested flag appears).
 */
const NOT_YET_EXERCISED: Record<string, string> = {
  'stack permission set --team': 'access control (issue of helper a18): no test sets a team grant yet',
  'stack schedule list --output': 'schedules (issue 32): the CLI test lists in the table form only',
  'stack schedule list --count': 'schedules (issue 32): no test pages the list',
  'stack schedule get --output': 'schedules (issue 32): no CLI test reads one schedule',
  'stack schedule edit --once': 'schedules (issue 32): the CLI test edits a cron schedule only',
  'stack schedule edit --operation': 'schedules (issue 32): the CLI test edits a drift schedule only',
  'stack schedule edit --delete-after-destroy': 'schedules (issue 32): the CLI test edits a drift schedule only',
  'stack schedule pause --output': 'schedules (issue 32): pause is tested in the table form only',
  'stack schedule resume --output': 'schedules (issue 32): resume is tested in the table form only',
};

interface Flag {
  path: string[];
  command: Command;
  option: Option;
}

function flagsOf(command: Command, path: string[] = []): Flag[] {
  const own = command.options
    .filter((o) => o.long !== '--help' && !(o.long === '--version' && path.length === 0))
    .map((option) => ({ path, command, option }));
  return [...own, ...command.commands.flatMap((sub) => flagsOf(sub, [...path, sub.name()]))];
}

// A run declares only the commands on its path (lazy-tree.ts); this walk declares all of them.
const program = createProgram('0.0.0-test');
declareTree(program);
const flags = flagsOf(program);
const refused = flags.filter((f) => refusalReason(f.command, f.option.long!) !== undefined);
const implemented = flags.filter((f) => refusalReason(f.command, f.option.long!) === undefined);

/** Placeholder arguments for a command's required positionals. */
function requiredArgs(command: Command): string[] {
  return command.registeredArguments.filter((a) => a.required).map(() => 'x');
}

describe('the command tree', () => {
  it('has flags of both kinds (the walk found the tree)', () => {
    expect(refused.length).toBeGreaterThan(40);
    expect(implemented.length).toBeGreaterThan(100);
  });

  it.each(refused.map((f) => [`${f.path.join(' ') || 'stackyard'} ${f.option.long}`, f] as const))('refuses %s with the reason, before running', async (_name, f) => {
    // Prepare: a fresh tree, so no option value lingers from an earlier parse; it declares the commands on the path
    // as a real run does
    const fresh = createProgram('0.0.0-test');
    const value = f.option.required ? ['1'] : [];
    // The program's own flags need a command to run.
    const argv = f.path.length ? [...f.path, ...requiredArgs(f.command), f.option.long!, ...value] : [f.option.long!, ...value, 'whoami'];

    // Act
    const run = fresh.parseAsync(argv, { from: 'user' });

    // Assess
    await expect(run).rejects.toBeInstanceOf(UsageError);
    await expect(run).rejects.toThrow(`${f.option.long} is not supported by stackyard: ${refusalReason(f.command, f.option.long!)}`);
  });

  it('names, for every implemented flag of the operation, stack, config, state and login commands, a test that exercises it', () => {
    const missing: string[] = [];
    const untested: string[] = [];
    for (const f of implemented) {
      const name = f.path.join(' ');
      if (!AUDITED.test(name)) continue;
      const file = EXERCISED[`${name} ${f.option.long}`] ?? EXERCISED[f.option.long!];
      if (!file) {
        if (NOT_YET_EXERCISED[`${name} ${f.option.long}`]) untested.push(`${name} ${f.option.long}`);
        else missing.push(`${name} ${f.option.long}: no test named`);
        continue;
      }
      const text = readFileSync(join(REPO, file), 'utf8');
      const spellings = [f.option.long!, f.option.short].filter((s): s is string => s !== undefined);
      if (!spellings.some((s) => new RegExp(`(?<![\\w-])${s}(?![\\w-])`).test(text))) missing.push(`${name} ${f.option.long}: not used in ${file}`);
    }
    expect(missing).toEqual([]);
    expect(untested.sort()).toEqual(Object.keys(NOT_YET_EXERCISED).sort());
  });
});
