#!/usr/bin/env node
// Plain JS shim so an old Node fails with a clear message instead of a syntax error inside the bundle.
import module from 'node:module';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`stackyard needs Node.js 20.19 or newer (found ${process.versions.node}).\n`);
  process.exit(1);
}
// Node 22.1+ keeps the compiled bundle between runs (in the OS temp folder, or NODE_COMPILE_CACHE), so start-up
// skips most compiling. It never fails a run, and it applies to this process only, not to programs it starts.
module.enableCompileCache?.();
await import('../../dist/cli/stackyard.mjs');
