/**
 * An esbuild plugin for the CLI bundle: `node:crypto` is loaded when one of its functions is first called, not when
 * a module that imports it is loaded.
 *
 * Every local storage adapter imports it for the random names and keys of what it writes, and the stack service for
 * new stack ids, but a command that only reads, like `stack ls`, calls none of it; loading it (about 25 internal
 * modules, and the ES-module facade Node builds of it) was about 1 ms of every start on Node 22
 * (docs/performance.md, `cli-startup`).
 *
 * `import { randomBytes } from 'node:crypto'` resolves to a module that exports a `randomBytes` which requires
 * node:crypto on its first call and calls the real one. Only functions can be forwarded this way, so only its
 * functions are exported: importing one of its classes or objects (`KeyObject`, `constants`, `webcrypto`) fails the
 * build with esbuild's "No matching export", rather than the bundle getting a stand-in that is not the real thing.
 */
import * as crypto from 'node:crypto';

const NAMESPACE = 'lazy-crypto';

/**
 * The functions of node:crypto (lower-case names: its classes are capitalised), as the Node running the build has
 * them; the bundle runs on the same major versions (package.json `engines`).
 */
const FUNCTIONS = Object.keys(crypto).filter((name) => /^[a-z]/.test(name) && typeof crypto[name] === 'function');

const SOURCE = [
  'let real;',
  "const load = () => (real ??= require('node:crypto'));",
  ...FUNCTIONS.map((name) => `export function ${name}(...args) { return load().${name}(...args); }`),
  '',
].join('\n');

export const lazyCrypto = {
  name: 'lazy-crypto',
  setup(build) {
    build.onResolve({ filter: /^node:crypto$/ }, (args) => (args.kind === 'import-statement' ? { path: 'crypto', namespace: NAMESPACE } : undefined));
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, () => ({ contents: SOURCE, loader: 'js' }));
  },
};
