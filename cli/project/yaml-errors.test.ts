import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { findProject } from './project.js';
import { StackConfigFile } from './stack-config.js';

const root = mkdtempSync(join(tmpdir(), 'stackyard-yaml-errors-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A project folder holding `files`; its own STACKYARD_HOME, so no parse comes from a cache. */
function folder(files: Record<string, string>): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(root, 'case-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, env: { STACKYARD_HOME: join(dir, 'home') } };
}

async function projectError(pulumiYaml: string): Promise<string> {
  const { dir, env } = folder({ 'Pulumi.yaml': pulumiYaml });
  return findProject(dir, env).then(
    () => 'no error',
    (error: unknown) => (error as Error).message,
  );
}

/** Where the `yaml` package puts the first error of `text`. */
function libraryPosition(text: string): string {
  const [{ line, col }] = parseDocument(text).errors[0]!.linePos!;
  return `line ${line}, column ${col}`;
}

describe('a broken YAML file is reported at the line to fix', () => {
  it('points a Pulumi.yaml error inside the file where the yaml package does, on one line', async () => {
    const text = 'name: web\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n     path: ./prov\n';

    const message = await projectError(text);

    expect(libraryPosition(text)).toBe('line 6, column 1');
    expect(message).toMatch(/Pulumi\.yaml is not valid YAML: Sequence item without - indicator at line 6, column 1$/);
  });

  it('points a bracket left open in Pulumi.yaml at its line, not past the end of the file', async () => {
    const text = 'name: web\nruntime: nodejs\nconfig:\n  zones: [a, b\n';

    const message = await projectError(text);

    // The package sees the missing `]` only when the text has run out: after the last line.
    expect(libraryPosition(text)).toBe('line 5, column 1');
    expect(message).toMatch(/Pulumi\.yaml is not valid YAML: Flow sequence .* end with a \] at line 4, column 10 \(still open at the end of the file\)$/);
  });

  it('points a quote left open in Pulumi.<stack>.yaml at the line it opens on', async () => {
    const { dir } = folder({ 'Pulumi.dev.yaml': 'config:\n  web:greeting: "hello\n  web:name: x\n\n' });

    const refused = StackConfigFile.load(join(dir, 'Pulumi.dev.yaml'));

    await expect(refused).rejects.toThrow(/Pulumi\.dev\.yaml is not valid YAML: Missing closing "quote at line 2, column 17 \(still open at the end of the file\)$/);
  });
});
