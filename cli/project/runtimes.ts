/**
 * The language runtimes `Pulumi.yaml` may name, and what a runtime served by a language plugin needs when the plugin
 * is missing. Node.js runs in stackyard itself; every other runtime is Pulumi's `pulumi-language-<runtime>` plugin.
 */
import { UserError } from '../output/errors.js';
import { resolvePlugin } from '../plugins/resolve.js';

/** Pulumi's own runtimes (`pulumi new` templates, `pulumi-language-*` plugins shipped with the `pulumi` CLI). */
export const KNOWN_RUNTIMES = ['nodejs', 'python', 'go', 'dotnet', 'java', 'yaml'] as const;

/**
 * Refuses a runtime that is neither Pulumi's nor served by a language plugin found here (a misspelling such as
 * `nodjs`), so `stack init` fails before a stack exists rather than the first `up`.
 */
export function requireKnownRuntime(runtime: string, file: string, env: NodeJS.ProcessEnv, projectDir: string): void {
  if ((KNOWN_RUNTIMES as readonly string[]).includes(runtime)) return;
  if (resolvePlugin({ kind: 'language', name: runtime.replaceAll('/', '_') }, { env, projectDir })) return;
  throw new UserError(
    `${file}: unknown runtime '${runtime}': no language plugin pulumi-language-${runtime} is installed or on PATH`,
    `Use one of ${KNOWN_RUNTIMES.join(', ')} (or install the plugin of a custom runtime).`,
  );
}

/** What to do when a runtime's language plugin is missing, appended to the reason it could not be found. */
export function missingLanguagePluginHint(runtime: string): string {
  return (
    `runtime '${runtime}' needs the language plugin pulumi-language-${runtime}, which stackyard does not bundle. The ` +
    '`pulumi` CLI ships it: putting its folder on PATH is enough (e.g. `export PATH=$HOME/.pulumi/bin:$PATH`). Or ' +
    `install it: \`stackyard plugin install language ${runtime} <version>\` (offline: add \`--file <pulumi-language-${runtime}-…tar.gz>\`).`
  );
}
