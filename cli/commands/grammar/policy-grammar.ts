/** `policy` and its subcommands, in Pulumi's grammar (pkg/cmd/pulumi/policy/*.go); docs/policy.md. */
import { type Command, InvalidArgumentError } from 'commander';
import type { FlagSpec } from '../pulumi-flags.js';
import { JSON_FLAG, group, leaf } from './tree.js';

const policyCommands = {
  ls: () => import('../policy/policy-ls.js'),
  groupLs: () => import('../policy/policy-group-ls.js'),
  enable: () => import('../policy/policy-enable.js'),
  disable: () => import('../policy/policy-disable.js'),
  rm: () => import('../policy/policy-rm.js'),
  validateConfig: () => import('../policy/policy-validate-config.js'),
  publish: () => import('../policy/policy-publish.js'),
  create: () => import('../policy/policy-new.js'),
};

/** Pulumi's `outputflag`: `--output default|json`, with `-j, --json` as its alias. */
const OUTPUT_FLAGS: FlagSpec[] = [
  JSON_FLAG,
  {
    flags: '--output <format>',
    description: 'output format: default or json',
    parse: (value) => {
      if (value !== 'default' && value !== 'json') throw new InvalidArgumentError('must be one of: default, json');
      return value;
    },
  },
];

const POLICY_GROUP_FLAG = (verb: string): FlagSpec => ({
  flags: '--policy-group <group>',
  description: `the Policy Group for which the Policy Pack will be ${verb}; if not specified, the default Policy Group is used`,
});

export function registerPolicyGrammar(program: Command): void {
  group(program, 'policy', 'Manage resource policies (docs/policy.md)', (policyCmd) => {
    leaf(policyCmd, 'new [template]', 'Create a new Pulumi Policy Pack', [
      { flags: '--dir <dir>', description: 'the location to place the generated Policy Pack; if not specified, the current directory is used' },
      { flags: '-f, --force', description: 'forces content to be generated even if it would change existing files' },
      { flags: '-g, --generate-only', description: 'generate the Policy Pack without installing dependencies' },
      { flags: '-o, --offline', description: 'use locally cached templates without making any network requests (stackyard\'s templates are built in)' },
    ], async () => (await policyCommands.create()).policyNew);
    leaf(policyCmd, 'publish [org-name]', 'Publish a Policy Pack to the service', [], async () => (await policyCommands.publish()).policyPublish);
    leaf(policyCmd, 'ls [org-name]', 'List all Policy Packs for an organization', OUTPUT_FLAGS, async () => (await policyCommands.ls()).policyLs).alias('list');
    leaf(policyCmd, 'enable <policy-pack> <version>', 'Enable a Policy Pack (<org-name>/<policy-pack-name>) at a version, or latest, for a Policy Group', [
      POLICY_GROUP_FLAG('enabled'),
      { flags: '--config <file>', description: 'the file path for the Policy Pack configuration file' },
    ], async () => (await policyCommands.enable()).policyEnable);
    leaf(policyCmd, 'disable <policy-pack>', 'Disable a Policy Pack (<org-name>/<policy-pack-name>) for a Policy Group', [
      POLICY_GROUP_FLAG('disabled'),
      { flags: '--version <version>', description: 'the version of the Policy Pack that will be disabled; if not specified, any enabled version of the Policy Pack will be disabled' },
    ], async () => (await policyCommands.disable()).policyDisable);
    leaf(policyCmd, 'rm <policy-pack> <version>', 'Removes a Policy Pack (<org-name>/<policy-pack-name>) version, or all, from an organization', [
      { flags: '-y, --yes', description: 'skip confirmation prompts, and proceed with removal anyway' },
    ], async () => (await policyCommands.rm()).policyRm).aliases(['remove', 'delete']);
    leaf(policyCmd, 'validate-config <policy-pack> <version>', 'Validate a Policy Pack configuration against the configuration schema of the specified version', [
      { flags: '--config <file>', description: 'the file path for the Policy Pack configuration file (required)' },
    ], async () => (await policyCommands.validateConfig()).policyValidateConfig);
    group(policyCmd, 'group', 'Manage policy groups', (groupCmd) => {
      leaf(groupCmd, 'ls [org-name]', 'List all Policy Groups for an organization', OUTPUT_FLAGS, async () => (await policyCommands.groupLs()).policyGroupLs).alias('list');
    });
  });
}
