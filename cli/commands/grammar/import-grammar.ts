/** `import`, in Pulumi's grammar (pkg/cmd/pulumi/operations/import.go): its flags, defaults and refusals. */
import type { Command } from 'commander';
import { boolValue } from '../engine-flags.js';
import { COMMAND_GLOBALS, integer, leaf } from './tree.js';

/** `--properties a,b --properties c`: cobra's StringSlice (comma-separated, repeatable). */
function propertyList(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').filter(Boolean)];
}

export function registerImportGrammar(program: Command): void {
  leaf(program, 'import [type] [name] [id]', 'Import resources into an existing stack (one on the command line, or many with --file)', [
    { flags: '--parent <name=urn>', description: 'the name and URN of the parent resource, where name is the variable name of the parent resource' },
    { flags: '--provider <name=urn>', description: 'the name and URN of the provider to use for the import, where name is the variable name for the provider resource' },
    { flags: '--properties <names>', description: 'the property names to use for the import in the format name1,name2', parse: propertyList },
    { flags: '-f, --file <path>', description: 'the path to a JSON-encoded file containing a list of resources to import' },
    { flags: '-o, --out <path>', description: 'the path to the file that will contain the generated resource declarations' },
    { flags: '--generate-code [bool]', description: 'generate resource declaration code for the imported resources (default true; --generate-code=false: none)', parse: boolValue },
    { flags: '--protect [bool]', description: 'allow resources to be imported with protection from deletion enabled (default true)', parse: boolValue },
    { flags: '-d, --debug', description: 'print detailed debugging output during resource operations' },
    { flags: '-v, --verbose <level>', description: 'print engine debug diagnostics (as -d)' },
    { flags: '-m, --message <text>', description: 'optional message to associate with the update operation' },
    { flags: '-s, --stack <name>', description: 'the name of the stack to operate on (default: the current stack)' },
    { flags: '--config-file <file>', description: 'use the configuration values in the specified file rather than detecting the file name' },
    { flags: '--diff', description: 'display operation as a rich diff showing the overall change' },
    { flags: '-p, --parallel <n>', description: 'allow P resource operations to run in parallel at once (1 for no parallelism)', parse: integer },
    { flags: '--preview-only', description: "only show a preview of the import, but don't perform the import itself" },
    { flags: '--skip-preview', description: 'do not calculate a preview before performing the import' },
    { flags: '-j, --json', description: 'serialize the import diffs, operations, and overall output as JSON' },
    { flags: '--suppress-outputs', description: 'suppress display of stack outputs (in case they contain sensitive values)' },
    { flags: '--suppress-progress', description: 'suppress display of periodic progress dots' },
    { flags: '--suppress-permalink [bool]', description: 'suppress display of the state permalink' },
    { flags: '-y, --yes', description: 'automatically approve and perform the import after previewing it' },
    { flags: '--skip-plugin-pre-install', description: 'skip the up-front provider plugin install step' },
    { flags: '--event-log <file>', description: 'log events to a file at this path' },
    { flags: '--urns', description: 'display full URNs instead of short resource names', refused: 'list URNs with `stackyard stack --show-urns`' },
    { flags: '--from <converter>', description: 'invoke a converter to import the resources', refused: 'stackyard runs no converter plugins; write an import file (see `stackyard preview --import-file`)' },
    { flags: '--generate-resources <path>', description: 'with --from, write the import file the converter found', refused: 'stackyard runs no converter plugins' },
    { flags: '--exec-kind <kind>', description: 'execution kind (internal)', refused: 'an internal flag of Pulumi Deployments agents', hidden: true },
    { flags: '--exec-agent <agent>', description: 'execution agent (internal)', refused: 'an internal flag of Pulumi Deployments agents', hidden: true },
  ], async () => (await import('../import.js')).importResources, COMMAND_GLOBALS.filter((f) => !/^-v,/.test(f.flags)));
}
