/**
 * The core names what it needs from AWS through ports (shared/ports/); the SDK's clients live in the adapters
 * (shared/adapters/aws/). Checked on every import of shared/core, type-only ones included.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Core files that still reach the SDK themselves, each with its reason; the list only shrinks. */
const STILL_IN_CORE: Record<string, string> = {
  'shared/core/hooks/lambda.ts': "hooks' Lambda invoker: the port (LambdaInvoker) exists, its SDK side has not moved to an adapter yet",
  'shared/core/hooks/lambda-sdk.ts': "the Lambda SDK's re-exports that lambda.ts loads lazily",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the core and the AWS SDK', () => {
  it('imports no @aws-sdk package outside the files listed with their reason', () => {
    const offenders = sourceFiles(join(REPO, 'shared/core'))
      .map((file) => ({ file: relative(REPO, file), imports: ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((i) => i.fileName) }))
      .filter(({ file, imports }) => !(file in STILL_IN_CORE) && imports.some((name) => name.startsWith('@aws-sdk/') || name.startsWith('@smithy/')))
      .map(({ file }) => file);

    expect(offenders).toEqual([]);
  });
});
