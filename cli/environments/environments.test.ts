import { describe, expect, it } from 'vitest';
import { parseEnvironmentArg, parseRelativeArg } from './refs.js';
import { goIndentJSON, prepareEnvironment } from './render.js';
import { unifiedDiff } from '../../shared/esc/unified-diff.js';
import { cutAtSeparator, parseEditorCommand } from './editor.js';
import { redactingWriter } from './redact.js';
import { setDefinitionValue, valueNode } from './definition.js';
import { PassThrough } from 'node:stream';

describe('environment names', () => {
  it('reads one, two and three parts and a version as ESC does', () => {
    expect(parseEnvironmentArg('dev', 'acme')).toMatchObject({ org: 'acme', project: 'default', name: 'dev', version: '', legacy: true });
    expect(parseEnvironmentArg('app/dev@stable', 'acme')).toMatchObject({ org: 'acme', project: 'app', name: 'dev', version: 'stable', ambiguous: true });
    expect(parseEnvironmentArg('o/app/dev:3', 'acme')).toMatchObject({ org: 'o', project: 'app', name: 'dev', version: '3' });
    expect(parseRelativeArg('@4', 'acme', parseEnvironmentArg('o/app/dev@1', 'acme'))).toMatchObject({ org: 'o', project: 'app', name: 'dev', version: '4' });
  });
});

describe('env set', () => {
  it('writes a path into an empty definition, as a new environment has (remote config creates one)', () => {
    const secret = valueNode('s3cret', { raw: false, secret: true });
    expect(setDefinitionValue('', ['pulumiConfig', 'app:size'], valueNode('large', { raw: false, secret: false }))).toBe('values:\n  pulumiConfig:\n    app:size: large\n');
    expect(setDefinitionValue('values:\n  a: 1\n', ['pulumiConfig', 'password'], secret)).toBe('values:\n  a: 1\n  pulumiConfig:\n    password:\n      fn::secret: s3cret\n');
  });
});

describe('rendering', () => {
  it("prints JSON as Go's MarshalIndent: keys sorted, HTML characters escaped, empty collections inline", () => {
    expect(goIndentJSON({ b: [1, 'x<y'], a: {}, c: [] })).toBe('{\n  "a": {},\n  "b": [\n    1,\n    "x\\u003cy"\n  ],\n  "c": []\n}');
  });

  it('exports variables then file paths, sorted and quoted, secrets redacted when asked', async () => {
    const env = {
      properties: {
        environmentVariables: { value: { B: { value: 'two' }, A: { value: 'x"y', secret: true } } },
        files: { value: { F: { value: 'content' } } },
      },
    } as never;
    const pretend = await prepareEnvironment(env, { quote: true, redact: true });
    const written = await prepareEnvironment(env, { quote: false, redact: false, writeFile: async () => '/tmp/f' });

    expect(pretend.environ).toEqual(['A="[secret]"', 'B="two"', 'F="[unknown]"']);
    expect(written).toEqual({ environ: ['A=x"y', 'B=two', 'F=/tmp/f'], secrets: ['x"y'], paths: ['/tmp/f'] });
  });
});

describe('unified diff', () => {
  it("writes gotextdiff's hunks: deletions before insertions, three lines of context, the missing final newline noted", () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\nh';
    const after = 'a\nb\nc\nd\nE\nf\ng\nh';

    expect(unifiedDiff('x@1', before, 'x@2', after)).toBe('--- x@1\n+++ x@2\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n\\ No newline at end of file\n');
    expect(unifiedDiff('x@1', '', 'x@2', 'a\n')).toBe('--- x@1\n+++ x@2\n@@ -1 +1 @@\n+a\n');
    expect(unifiedDiff('x@1', 'same\n', 'x@2', 'same\n')).toBe('');
  });
});

describe('the editor', () => {
  it('splits the command as ESC does and cuts the comments after the first --- line', () => {
    expect(parseEditorCommand('"my editor" -w --arg=\\"x\\"')).toEqual(['my editor', '-w', '--arg="x"']);
    expect(cutAtSeparator('values:\n  a: 1\n---\n# result\n')).toBe('values:\n  a: 1\n');
    expect(cutAtSeparator('values:\n  a: "---x"\n')).toBe('values:\n  a: "---x"\n');
  });
});

describe("env run's output filter", () => {
  it('replaces secrets of three characters or more, line by line, including a last line without a newline', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const writer = redactingWriter(out, ['hunter2', 'ab']);

    writer.write('pass=hun');
    writer.write('ter2 ab\nend hunter2');
    await new Promise<void>((resolve) => writer.end(resolve));

    expect(text).toBe('pass=[secret] ab\nend [secret]');
  });
});
