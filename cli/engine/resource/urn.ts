/** URN rules, byte for byte as the Node SDK's `createUrn` computes them (aliases depend on it). */

/** Type of the root stack resource. */
export const STACK_TYPE = 'pulumi:pulumi:Stack';

/** Builds `urn:pulumi:<stack>::<project>::<qualified type>::<name>`; a Stack parent does not prefix the type. */
export function createUrn(stack: string, project: string, parentUrn: string | undefined, type: string, name: string): string {
  if (parentUrn) {
    const prefix = parentUrn.substring(0, parentUrn.lastIndexOf('::')) + '$';
    if (!prefix.endsWith(`::${STACK_TYPE}$`)) return `${prefix}${type}::${name}`;
  }
  return `urn:pulumi:${stack}::${project}::${type}::${name}`;
}

/** The resource name (text after the last `::`). */
export function urnName(urn: string): string {
  return urn.substring(urn.lastIndexOf('::') + 2);
}

/** The resource's own type (last `$` segment of the qualified type). */
export function urnType(urn: string): string {
  const parts = urn.split('::');
  const qualified = parts[2] ?? '';
  return qualified.substring(qualified.lastIndexOf('$') + 1);
}

/** The package of a type token (`aws:s3/bucket:Bucket` → `aws`; `pulumi:providers:aws` → `aws`). */
export function packageOfType(type: string): string {
  if (type.startsWith('pulumi:providers:')) return type.substring('pulumi:providers:'.length);
  return type.split(':')[0] ?? '';
}

/** True for provider resource types. */
export function isProviderType(type: string): boolean {
  return type.startsWith('pulumi:providers:');
}

/** Splits a provider reference `<urn>::<id>`. */
export function parseProviderRef(ref: string): { urn: string; id: string } {
  const i = ref.lastIndexOf('::');
  return { urn: ref.substring(0, i), id: ref.substring(i + 2) };
}

/** Formats a provider reference `<urn>::<id>`. */
export function formatProviderRef(urn: string, id: string): string {
  return `${urn}::${id}`;
}
