/**
 * A state over 8 MB as JSON (the size from which a checkpoint save scans the state instead of parsing it): 9,000
 * custom resources of about 1 KB each, every one depending on the one before, so the integrity check has references
 * to follow.
 */
export function largeResourceChain(urnOf: (n: number) => string): Record<string, unknown>[] {
  const padding = 'x'.repeat(1024);
  return Array.from({ length: 9000 }, (_, i) => ({
    urn: urnOf(i),
    custom: true,
    type: 't:i:R',
    ...(i > 0 ? { dependencies: [urnOf(i - 1)] } : {}),
    outputs: { padding },
  }));
}
