#!/usr/bin/env node
// Plain JS shim so an old Node fails with a clear message instead of a syntax error inside the bundle.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`stackyard needs Node.js 20.19 or newer (found ${process.versions.node}).\n`);
  process.exit(1);
}
await import('../../dist/cli/stackyard.mjs');
