/**
 * A loopback HTTP server that serves plugin archives the way a release server does (one file per URL path), and
 * counts the requests it receives. Archives are built at test time from the Node test provider.
 */
import { createServer, type Server } from 'node:http';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { c as createTar } from 'tar';

const REPO = resolve(import.meta.dirname, '../..');
export const TESTPROV_SOURCE = join(REPO, 'test/fixtures/providers/testprov/provider.cjs');

/** Pulumi's platform names for this machine. */
export function platform(): string {
  return `${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`;
}

/**
 * A plugin folder for the Node test provider: `provider.cjs` with the `world.cjs` it requires, and the executable
 * `pulumi-resource-testprov`, which runs it with this repository's node_modules on NODE_PATH.
 */
export function testprovPluginDir(into: string, kind = 'resource', name = 'testprov'): string {
  mkdirSync(into, { recursive: true });
  copyFileSync(TESTPROV_SOURCE, join(into, 'provider.cjs'));
  copyFileSync(join(TESTPROV_SOURCE, '..', 'world.cjs'), join(into, 'world.cjs'));
  const bin = join(into, `pulumi-${kind}-${name}`);
  writeFileSync(bin, `#!/bin/sh\nNODE_PATH="${join(REPO, 'node_modules')}" exec "${process.execPath}" "$(dirname "$0")/provider.cjs" "$@"\n`);
  chmodSync(bin, 0o755);
  return into;
}

/** Packs a plugin folder into a `.tar.gz` as a release would publish it; returns the archive's bytes. */
export async function packPlugin(dir: string, files: string[]): Promise<Buffer> {
  const out = join(mkdtempSync(join(tmpdir(), 'stackyard-plugin-pack-')), 'plugin.tar.gz');
  await createTar({ gzip: true, cwd: dir, file: out, portable: true }, files);
  return readFileSync(out);
}

export const TEST_LANGUAGE_SOURCE = join(REPO, 'test/fixtures/languages/yaml/language.cjs');

/**
 * A plugin folder for the Node test language plugin (`pulumi-language-yaml`): `language.cjs` and an executable that
 * runs it with this repository's node_modules on NODE_PATH.
 */
export function testLanguagePluginDir(into: string): string {
  mkdirSync(into, { recursive: true });
  copyFileSync(TEST_LANGUAGE_SOURCE, join(into, 'language.cjs'));
  const bin = join(into, 'pulumi-language-yaml');
  writeFileSync(bin, `#!/bin/sh\nNODE_PATH="${join(REPO, 'node_modules')}" exec "${process.execPath}" "$(dirname "$0")/language.cjs" "$@"\n`);
  chmodSync(bin, 0o755);
  return into;
}

/** The test language plugin packed as `pulumi-language-yaml-v<version>-<os>-<arch>.tar.gz`. */
export async function testLanguageArchive(): Promise<Buffer> {
  const dir = testLanguagePluginDir(mkdtempSync(join(tmpdir(), 'stackyard-testlang-')));
  return packPlugin(dir, ['pulumi-language-yaml', 'language.cjs']);
}

/** The test provider packed as `pulumi-resource-testprov-v<version>-<os>-<arch>.tar.gz`. */
export async function testprovArchive(): Promise<Buffer> {
  const dir = testprovPluginDir(mkdtempSync(join(tmpdir(), 'stackyard-testprov-')));
  return packPlugin(dir, ['pulumi-resource-testprov', 'provider.cjs', 'world.cjs']);
}

/** A running release server. */
export interface PluginServer {
  url: string;
  /** Paths requested so far, in order. */
  requests: string[];
  /** Serves `body` at `path` (e.g. `/releases/pulumi-resource-testprov-v1.0.0-linux-amd64.tar.gz`). */
  serve(path: string, body: Buffer): void;
  /** Waits this long before answering archive requests (to make concurrent installs overlap). */
  delayMs: number;
  close(): Promise<void>;
}

/** Starts a release server on 127.0.0.1; unknown paths answer 404. */
export async function startPluginServer(): Promise<PluginServer> {
  const files = new Map<string, Buffer>();
  const requests: string[] = [];
  const state = { delayMs: 0 };
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const body = files.get(path);
    const answer = () => {
      if (!body) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length }).end(body);
    };
    if (state.delayMs > 0) setTimeout(answer, state.delayMs);
    else answer();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    serve: (path, body) => void files.set(path, body),
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
