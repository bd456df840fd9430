import { defineConfig } from 'vitest/config';

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
