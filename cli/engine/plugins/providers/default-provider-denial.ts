/**
 * `pulumi:disable-default-providers`: packages whose default provider the engine must not create, so every resource,
 * read and invoke of them names an explicit provider (Pulumi's `shouldDenyRequest` in default_providers.go).
 */
import type { StackConfig } from '../../config/program-config.js';

const KEY = 'pulumi:disable-default-providers';

/**
 * True when the stack's config disables the default provider of `pkg`: the value is a JSON list of package names,
 * `*` standing for all. The `pulumi` package is never disabled. A malformed value fails the request, as in Pulumi.
 */
export function isDefaultProviderDisabled(pkg: string, config: StackConfig): boolean {
  if (pkg === 'pulumi') return false;
  const setting = config[KEY];
  if (!setting || setting.value === '') return false;
  let listed: unknown;
  try {
    listed = JSON.parse(setting.value);
  } catch (err) {
    throw new Error(`Failed to parse ${setting.value}: ${(err as Error).message}`);
  }
  if (!Array.isArray(listed)) throw new Error(`Failed to parse ${setting.value}: expected a list of package names`);
  return listed.some((entry, i) => {
    if (typeof entry !== 'string') throw new Error(`${KEY}[${i}] must be a string`);
    const name = entry.trim();
    return name === '*' || name === pkg;
  });
}

/** Pulumi's diagnostic for a resource, read or invoke that needs a disabled default provider. */
export function defaultProviderDisabledError(pkg: string, subject: string): Error {
  return new Error(`Default provider for '${pkg}' disabled. '${subject}' must use an explicit provider.`);
}
