/**
 * Pulumi's own golden files of its diff display (test/fixtures/pulumi-display, from pkg/backend/display/testdata):
 * each recorded event stream rendered by our diff display with the options of Pulumi's `TestDiffEvents` (raw color
 * tags, `--show-config`, `--show-replacement-steps`, `--show-sames`, `--show-reads`; `truncated/` with output
 * truncation, the rest without), compared byte for byte, colors included, with Pulumi's expected stdout and stderr.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DiffRenderer, type DiffEvent } from './diff-events.js';
import { SECRET_SIG, SIG_KEY, type PropertyMap, type PropertyValue } from '../../resource/properties.js';

const TESTDATA = join(import.meta.dirname, '../../../../test/fixtures/pulumi-display');

function holdsBlindedSecret(v: PropertyValue | undefined): boolean {
  if (Array.isArray(v)) return v.some(holdsBlindedSecret);
  if (typeof v !== 'object' || v === null) return false;
  return (v[SIG_KEY] === SECRET_SIG && 'ciphertext' in v) || Object.values(v).some(holdsBlindedSecret);
}

/**
 * Pulumi's tests read these logs through `ConvertJSONEvent`, whose blinding decrypter answers `[secret]` for a
 * secret's ciphertext, which is not JSON: the map holding it fails to deserialize and is replaced by an empty one.
 * The expected outputs were made that way, so the logs are read the same way here.
 */
function asPulumiReadsIt(line: string): DiffEvent {
  return JSON.parse(line, (key, value: PropertyMap) => ((key === 'inputs' || key === 'outputs') && holdsBlindedSecret(value) ? {} : value)) as DiffEvent;
}

/** The JSON values of a log, one after another (one a line, or pretty-printed over several as in json-yaml/). */
function jsonValues(text: string): string[] {
  const values: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') {
      if (depth++ === 0) start = i;
    } else if (ch === '}' && --depth === 0) values.push(text.slice(start, i + 1));
  }
  return values;
}

function render(events: DiffEvent[], truncateOutput: boolean): { stdout: string; stderr: string } {
  const renderer = new DiffRenderer({ color: 'raw', showConfig: true, showReplacementSteps: true, showSames: true, truncateOutput });
  let stdout = '';
  let stderr = '';
  for (const e of events) {
    const out = renderer.render(e);
    stdout += out.stdout ?? '';
    stderr += out.stderr ?? '';
  }
  return { stdout, stderr };
}

function cases(folder: string): string[] {
  return readdirSync(join(TESTDATA, folder)).filter((f) => f.endsWith('.json'));
}

describe.each([
  ['not-truncated', false],
  ['json-yaml', false],
  ['truncated', true],
])("Pulumi's diff display testdata: %s", (folder, truncate) => {
  it.each(cases(folder))('%s renders as Pulumi renders it', (name) => {
    const path = join(TESTDATA, folder, name);
    const events = jsonValues(readFileSync(path, 'utf8')).map(asPulumiReadsIt);

    const { stdout, stderr } = render(events, truncate);

    expect(stdout).toBe(readFileSync(`${path}.stdout.txt`, 'utf8'));
    expect(stderr).toBe(readFileSync(`${path}.stderr.txt`, 'utf8'));
  });
});
