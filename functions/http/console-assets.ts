import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { NotFoundError } from '../../shared/core/errors.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** The built web console (`npm run build` writes it to dist/console): index.html plus hashed files under assets/. */
export interface ConsoleAssets {
  index: Buffer;
  /** `assets/<name>` → body. Names carry a content hash, so they are cached for good. */
  files: ReadonlyMap<string, Buffer>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json',
};

/**
 * Everything the page may load comes from this origin; no inline script, no framing. `style-src` allows inline
 * style attributes only because Preact sets `style` props (never style elements).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const PAGE_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** Reads `<dir>/index.html` and `<dir>/assets/*` into memory (a few hundred KB), or `undefined` without a build. */
export function readConsoleAssets(dir: string): ConsoleAssets | undefined {
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return undefined;
  const files = new Map<string, Buffer>();
  const assets = join(dir, 'assets');
  if (existsSync(assets)) {
    for (const name of readdirSync(assets)) files.set(`assets/${name}`, readFileSync(join(assets, name)));
  }
  return { index: readFileSync(indexPath), files };
}

/**
 * The console next to the running code: `console/` beside a Lambda bundle, `dist/console` from `stackyard serve`'s
 * bundle (dist/cli/…) or from the sources. Looks in `from` and its ancestors.
 */
export function findConsoleAssets(from: string): ConsoleAssets | undefined {
  for (let dir = from, depth = 0; depth < 6; dir = dirname(dir), depth += 1) {
    for (const candidate of [join(dir, 'console'), join(dir, 'dist', 'console')]) {
      const assets = readConsoleAssets(candidate);
      if (assets) return assets;
    }
    if (dirname(dir) === dir) break;
  }
  return undefined;
}

/** Whether a request that matched no API route is a console page or asset (GET/HEAD outside /api/). */
export function isConsoleRequest(request: HttpRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && !request.path.startsWith('/api/') && request.path !== '/api';
}

/**
 * A hashed asset, or the console's page for any other path: the page routes itself (Pulumi Cloud's URL layout), so
 * deep links work. Unknown `assets/…` names are 404s, never the page.
 */
export function consoleResponse(assets: ConsoleAssets | undefined, request: HttpRequest): HttpResponse {
  if (!assets) {
    throw new NotFoundError('The web console is not built into this deployment: run `npm run build` and deploy again.');
  }
  const path = request.path.replace(/^\/+/, '');
  if (path.startsWith('assets/')) {
    const body = assets.files.get(path);
    if (!body) throw new NotFoundError(`No console asset '${path.slice(0, 100)}': reload the page to get the current ones.`);
    return {
      status: 200,
      headers: {
        'content-type': CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      },
      body: request.method === 'HEAD' ? Buffer.alloc(0) : body,
    };
  }
  return {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...PAGE_HEADERS },
    body: request.method === 'HEAD' ? Buffer.alloc(0) : assets.index,
  };
}
