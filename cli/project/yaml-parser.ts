// Imported lazily by yaml-cache.ts: static re-exports, because a CommonJS package imported dynamically from an
// esbuild chunk exposes its exports only as `default`.
import { parseDocument } from 'yaml';

export { parse } from 'yaml';

/** Whether `parse` warns about `text` (an unresolved tag, for example): such a text must be parsed, and warned about, on every read. */
export function warnsOn(text: string): boolean {
  return parseDocument(text).warnings.length > 0;
}
