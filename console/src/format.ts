/** Display helpers shared by the pages. */

export function when(ms: number | undefined): string {
  if (ms === undefined || ms === 0) return '—';
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

export function duration(startMs: number | undefined, endMs: number | undefined): string {
  if (startMs === undefined || endMs === undefined) return '—';
  const seconds = Math.max(0, Math.round((endMs - startMs) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes}m ${seconds % 60}s` : `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

export function changes(resourceChanges: Record<string, number> | undefined): string {
  const entries = Object.entries(resourceChanges ?? {}).filter(([, n]) => n > 0);
  return entries.length === 0 ? '—' : entries.map(([op, n]) => `${n} ${op}`).join(', ');
}

/** `urn:pulumi:<stack>::<project>::<type>::<name>` → name. */
export function urnName(urn: string): string {
  const at = urn.lastIndexOf('::');
  return at < 0 ? urn : urn.slice(at + 2);
}

export function urnType(urn: string): string {
  const parts = urn.split('::');
  const type = parts[parts.length - 2] ?? '';
  return type.split('$').pop() ?? type;
}

/** Pulumi's colour tags (`<{%reset%}>`) and ANSI escapes, which the browser would print literally. */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/<\{%[^%]*%\}>/g, '').replace(/\u001b\[[0-9;]*m/g, '').trimEnd();
}
