import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Tests start thousands of Node processes (the CLI, serve, programs, plugins, policy packs), most of which load
 * @pulumi/pulumi first. From Node 22.1 on, NODE_COMPILE_CACHE keeps V8's compiled code of every module they load, so
 * the next process skips compiling it: on Node 22 the policy conformance files spend about 30% less CPU. The processes
 * inherit it from the test workers' environment; Node 20 ignores it. A developer's own setting wins.
 */
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'stackyard-test-compile-cache');

/**
 * Browser, crash and fuzz suites exercise our code and the processes it starts, not the Node version running the
 * tests, and they are the slowest files. CI's second leg (Node 22) sets STACKYARD_SKIP_ONCE_ONLY=1 so they run once
 * per CI run; a developer's `npm test` runs them always.
 */
const ONCE_ONLY = [
  'test/console/**', // Chromium
  'test/api/fuzz.test.ts',
  'test/engine/conformance/unknowns.property.test.ts',
  'test/e2e/crash-recovery.test.ts',
  'test/e2e/after-a-crash.test.ts',
  'test/api/audit-kill.test.ts',
  'test/api/serve-lock-kill.test.ts',
  'test/race/storage-outage.test.ts',
];

export default defineConfig({
  test: {
    include: ['{shared,functions,cli,infra,test}/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**', 'cdk.out/**', ...(process.env.STACKYARD_SKIP_ONCE_ONLY === '1' ? ONCE_ONLY : [])],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Suites start real processes (DynamoDB Local, s3rver, KMS, serve); forks keep them isolated per file.
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
