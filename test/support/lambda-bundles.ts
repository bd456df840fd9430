import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { BUNDLING, LAMBDA_ALIASES } from '../../infra/lib/constructs/api-functions.js';

const root = resolve(import.meta.dirname, '../..');
const handlersDir = join(root, 'functions/handlers');

/** The Lambda entry points: every module under functions/handlers/ but the shared API Gateway adapter. */
export function lambdaEntries(): string[] {
  return readdirSync(handlersDir)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && name !== 'api-gateway.ts')
    .map((name) => name.replace(/\.ts$/, ''));
}

/** esbuild options that bundle as the CDK app does (`BUNDLING`, `LAMBDA_ALIASES`), without CDK, into `outfile`. */
export function lambdaBuildOptions(outfile: string): BuildOptions & { metafile: true } {
  return {
    absWorkingDir: root,
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLING.target,
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    sourcesContent: BUNDLING.sourcesContent,
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    alias: { ...LAMBDA_ALIASES },
    metafile: true,
    logLevel: 'error',
  };
}

/**
 * Bundles one entry as the CDK app does: `<outDir>/<name>/index.mjs`.
 * Returns the file and esbuild's metafile (what the bundle holds, by input).
 */
export async function buildLambdaBundle(name: string, outDir: string): Promise<{ file: string; metafile: Metafile }> {
  const file = join(outDir, name, 'index.mjs');
  const { metafile } = await build({ ...lambdaBuildOptions(file), entryPoints: [join(handlersDir, `${name}.ts`)] });
  return { file, metafile };
}
