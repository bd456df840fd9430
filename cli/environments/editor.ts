/**
 * The editor `env edit` runs (ESC's `env_edit.go`): `--editor`, else `$VISUAL`, else `$EDITOR`, else `vi`, split into
 * words as ESC splits it (double quotes group, `\"` is a quote), with the temporary file's name appended; `code`
 * alone gets `-w`. The file holds the definition, then after `---` the last save's diagnostics and the evaluated
 * value as comments, which are cut off again at the first `---` line.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../output/errors.js';

/** An editor command line split into words (ESC's parseEditorCommand). */
export function parseEditorCommand(editor: string): string[] {
  const words: string[] = [];
  let rest = editor;
  for (;;) {
    rest = rest.trimStart();
    if (rest === '') return words;
    let word = '';
    let quoted = false;
    let i = 0;
    for (; i < rest.length; i++) {
      const c = rest[i]!;
      if (c === '"') {
        quoted = !quoted;
        continue;
      }
      if (!quoted && /\s/.test(c)) break;
      if (c === '\\' && rest[i + 1] === '"') {
        word += '"';
        i++;
      } else word += c;
    }
    words.push(word);
    rest = rest.slice(i);
  }
}

/** The editor to run, from the flag or the environment. */
export function chooseEditor(flag: string | undefined, env: NodeJS.ProcessEnv): string[] {
  const words = parseEditorCommand(flag || env.VISUAL || env.EDITOR || '');
  if (words.length === 0) return ['vi'];
  if (words[0] === 'code' && words.length === 1) words.push('-w');
  return words;
}

/** Writes `text` to a temporary `.yaml` file, runs the editor on it and returns the definition part of what it left. */
export async function editInEditor(editor: string[], text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'stackyard-env-edit-'));
  const file = join(dir, 'environment.yaml');
  try {
    await writeFile(file, text, { mode: 0o600 });
    const status = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(editor[0]!, [...editor.slice(1), file], { stdio: 'inherit' });
      child.on('error', (error) => reject(new UserError(`finding "${editor[0]}" on path: ${error.message}`, 'Pass --editor, or set VISUAL or EDITOR.')));
      child.on('close', resolve);
    });
    if (status !== 0) throw new UserError(`editor: exit status ${status}`);
    return cutAtSeparator(await readFile(file, 'utf8'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Everything before the first `---` line (the comments below it are not part of the definition). */
export function cutAtSeparator(text: string): string {
  const at = text.indexOf('---');
  if (at < 0) return text;
  const startsLine = at === 0 || text[at - 1] === '\n';
  const endsLine = at + 3 >= text.length || text[at + 3] === '\n';
  return startsLine && endsLine ? text.slice(0, at) : text;
}
