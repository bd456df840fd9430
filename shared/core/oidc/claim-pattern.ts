/**
 * Claim conditions of a trust policy: the claim's whole value must match the pattern, where `*` stands for any run
 * of characters (also empty, also `/` and `:`, so `repo:acme/*` covers every repository and ref of `acme`) and
 * every other character stands for itself. There is no escape for a literal `*`: CI providers' claims never use it.
 */
export function matchesClaimPattern(value: string, pattern: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return value === pattern;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (value.length < first.length + last.length || !value.startsWith(first) || !value.endsWith(last)) return false;
  let at = first.length;
  const end = value.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = value.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

/** A claim's value as a pattern sees it: strings as they are, numbers and booleans as JSON writes them. */
export function claimText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}
