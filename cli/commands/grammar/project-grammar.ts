/** Commands about the project and its tools: `new`, `migrate`, `console`, `cancel`, `install`, `about`, `watch`, `gen-completion`, `version`, and `logs`/`convert`, which parse Pulumi's flags and answer that they cannot run. */
import type { Command } from 'commander';
import { watchFlags } from '../engine-flags.js';
import { JSON_FLAG, STACK_FLAG, YES_FLAG, integer, leaf } from './tree.js';

export function registerProjectGrammar(program: Command): void {
  leaf(program, 'new [template]', 'Create a new project and stack from a template folder or a .zip/.tar.gz template URL', [
    { flags: '-c, --config <key=value>', description: 'config to save (repeatable)', repeatable: true },
    { flags: '--config-path', description: 'config keys contain a path to a property in a map or list' },
    { flags: '-d, --description <text>', description: 'the project description (default: asked, or the template\'s)' },
    { flags: '--dir <dir>', description: 'the folder to create the project in (default: the current one)' },
    { flags: '-f, --force', description: 'create the project even if it overwrites existing files' },
    { flags: '-g, --generate-only', description: 'write the project only: no stack, no config' },
    { flags: '-n, --name <name>', description: 'the project name (default: asked, or the folder\'s name)' },
    { flags: '-o, --offline', description: 'use no network (a template URL is refused)' },
    { flags: '-s, --stack <name>', description: 'the stack to create, or an existing org/project/stack (default: asked, dev)' },
    { flags: '-y, --yes', description: 'skip prompts and take every default' },
    { flags: '--secrets-provider <provider>', description: 'secrets provider', refused: "each stack's secrets are always encrypted with the stack's own key, held by the backend" },
    { flags: '-l, --list-templates', description: 'list installed templates', refused: 'stackyard keeps no template catalogue; pass a template folder or archive URL' },
    { flags: '--ai <prompt>', description: 'generate a project', refused: 'Pulumi retired AI project generation' },
    { flags: '--language <language>', description: 'language of --ai', refused: 'Pulumi retired AI project generation' },
    { flags: '-t, --template-mode', description: 'template mode', refused: 'template mode is the only mode (Pulumi ignores the flag); drop it' },
    { flags: '--runtime-options <options>', description: 'language runtime options', refused: 'stackyard asks no language plugin for options; set runtime.options in Pulumi.yaml' },
    { flags: '--remote-stack-config', description: 'store config in an ESC environment', refused: "Pulumi's `new` with it fails saving the template's config to the environment; run `stackyard new --generate-only`, then `stackyard stack init --remote-config`" },
  ], async () => (await import('../new.js')).newProject).aliases(['create', 'setup']);

  leaf(program, 'migrate', 'Move stacks (state, tags, history, config) from a Pulumi DIY backend, a Pulumi-compatible service or another stackyard backend into this one (docs/migration.md)', [
    { flags: '--from <source>', description: 'file://<dir> or s3://<bucket>[/<prefix>] (Pulumi DIY), https://<service>, or a stackyard data folder' },
    { flags: '--from-local', description: 'from the `login --local` data folder' },
    { flags: '--from-token <token>', description: 'access token for a service source (or STACKYARD_FROM_TOKEN)' },
    { flags: '--stack <glob>', description: 'only stacks matching project/stack (repeatable; * and ?)', repeatable: true },
    { flags: '--org <org>', description: 'organization of the new stacks (default: your default organization)' },
    { flags: '--project-dir <dir>', description: 'also migrate the Pulumi.<stack>.yaml files of this project (repeatable)', repeatable: true },
    { flags: '--dry-run', description: 'print the plan (stacks, resources, secrets, conflicts) and change nothing' },
  ], async () => (await import('../migrate.js')).migrate);

  leaf(program, 'console', 'Open the current stack in the web console (signed in through a one-time code)', [
    { flags: '-s, --stack <name>', description: 'the name of the stack to view' },
    { flags: '--print-url', description: 'print the sign-in URL (valid once, for 60 seconds) instead of opening a browser' },
  ], async () => (await import('../console.js')).consoleCommand);
  leaf(program, 'cancel [stack]', 'Cancel a stack\'s currently running update, if any', [STACK_FLAG, YES_FLAG], async () => (await import('../cancel.js')).cancel);

  leaf(program, 'install', 'Install the current program\'s dependencies and the plugins it needs', [
    { flags: '--parallel <n>', description: 'the max number of concurrent plugin installs (less than 1: unbounded)', parse: integer },
    { flags: '--reinstall', description: 'reinstall a plugin even if it already exists' },
    { flags: '--no-plugins', description: 'skip installing plugins' },
    { flags: '--no-dependencies', description: 'skip installing dependencies' },
    { flags: '--use-language-version-tools', description: 'use language version tools to set up and install the language runtime' },
  ], async () => (await import('../install.js')).install);

  leaf(program, 'about', 'Print information about the stackyard environment (CLI, plugins, host, project, stack, backend)', [
    JSON_FLAG,
    STACK_FLAG,
    { flags: '-t, --transitive', description: 'include transitive dependencies', refused: 'stackyard lists the program\'s direct dependencies only' },
  ], async () => (await import('../about.js')).about);

  leaf(program, 'watch', 'Run `up` each time files of the project change', watchFlags(), async () => (await import('../watch.js')).watch);
  leaf(program, 'gen-completion <shell>', 'Generate completion scripts for bash, zsh or fish', [], async () => (await import('../gen-completion.js')).genCompletion(program)).alias('completion');
  leaf(program, 'version', "Print stackyard's version number", [], async () => (await import('../version.js')).version);

  // Pulumi's flags are accepted so its command lines parse; the command itself answers that it cannot run.
  leaf(program, 'logs', 'Show aggregated resource logs for a stack (stackyard has no log provider)', [
    STACK_FLAG,
    JSON_FLAG,
    { flags: '--config-file <file>', description: 'use this configuration file' },
    { flags: '-f, --follow', description: 'follow the log stream' },
    { flags: '--since <time>', description: 'only logs newer than a duration or timestamp' },
    { flags: '-r, --resource <resource>', description: 'only logs of this resource' },
  ], async () => (await import('../logs.js')).logs);
  leaf(program, 'convert [args...]', 'Convert programs from other tools and languages (not supported by stackyard)', [], async () => (await import('../convert.js')).convert)
    .allowUnknownOption();
}
