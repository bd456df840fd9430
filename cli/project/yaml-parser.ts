// Imported lazily by yaml-cache.ts: a static re-export, because a CommonJS package imported dynamically from an
// esbuild chunk exposes its exports only as `default`.
export { parse } from 'yaml';
