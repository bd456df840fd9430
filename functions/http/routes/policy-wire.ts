/**
 * Go's encoder writes a nil pointer or slice as `null` where its struct has no `omitempty`; the core takes an absent
 * field for both. Only the top level is cleaned: a `null` inside a policy's config is a value.
 */
export function withoutNulls<T extends object>(body: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null)) as { [K in keyof T]: Exclude<T[K], null> };
}
