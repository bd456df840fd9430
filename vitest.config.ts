import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{shared,functions,cli,infra,test}/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**', 'cdk.out/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Suites start real processes (DynamoDB Local, s3rver, KMS, serve); forks keep them isolated per file.
    pool: 'forks',
    maxWorkers: 2,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
