/**
 * `stackyard env edit` and `env set`, as ESC's CLI (`cmd/esc/cli/env_edit.go`, `env_set.go`). Both save with the etag
 * of the revision they read, so a save that another one beat is refused (409) instead of overwriting it; a definition
 * with errors is refused showing every diagnostic, and `edit` offers to edit it again.
 */
import { createInterface } from 'node:readline';
import { goIndentJSON } from '../../environments/render.js';
import { parsePath, toJSON } from '../../../shared/esc/index.js';
import { looksLikeSecret, setDefinitionValue, valueNode } from '../../environments/definition.js';
import { propertyDiagnostics, yamlDiagnostics } from '../../environments/diagnostics.js';
import { chooseEditor, editInEditor } from '../../environments/editor.js';
import { UserError } from '../../output/errors.js';
import type { CommandHandler } from '../types.js';
import { escSession, existingFromArgs, readInput, refuseVersion } from './env-context.js';


/** Waits for ENTER (true) or the end of standard input (false). */
function enterOrEnd(): Promise<boolean> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin });
    let answered = false;
    rl.once('line', () => {
      answered = true;
      rl.close();
      resolve(true);
    });
    rl.once('close', () => {
      if (!answered) resolve(false);
    });
  });
}

/** The text the editor gets: the definition, then the diagnostics and the evaluated value as comments after `---`. */
function editorText(yaml: string, name: string, diagnostics: Parameters<typeof yamlDiagnostics>[2], value: unknown): string {
  let details = '';
  if (diagnostics.length > 0) details += `---\n${`# Diagnostics\n\n${yamlDiagnostics(name, yaml, diagnostics)}`.replaceAll('\n', '\n# ')}`;
  if (value !== undefined) {
    details +=
      '---\n# Please edit the environment definition above.\n# The object below is the current result of\n# evaluating the environment and will not be\n# saved. An empty definition aborts the edit.\n\n' +
      `${goIndentJSON(value as never)}\n`;
  }
  if (details === '') return yaml;
  return `${yaml}${yaml !== '' && !yaml.endsWith('\n') ? '\n' : ''}${details}`;
}

/** `env edit <env> [-f file|-] [--editor cmd] [--show-secrets]`. */
export const envEdit: CommandHandler = async (ctx, args, opts) => {
  const session = await escSession(ctx);
  const { ref } = await existingFromArgs(session, opts, args);
  refuseVersion(ref, 'edit');
  const name = `${ref.project}/${ref.name}`;
  if (typeof opts.file === 'string') {
    const yaml = await readInput(opts.file).catch((e: Error) => { throw new UserError(`reading environment definition: ${e.message}`); });
    const diagnostics = await session.envs.update(ref, yaml);
    if (diagnostics.length > 0) process.stderr.write(yamlDiagnostics(name, yaml, diagnostics));
    if (diagnostics.some((d) => d.severity === 'error')) throw new UserError('updating environment definition: too many errors');
    ctx.out('Environment updated.');
    return;
  }
  const editor = chooseEditor(opts.editor as string | undefined, ctx.env);
  const showSecrets = opts.showSecrets === true;
  let { yaml, etag } = await session.envs.getDefinition(ref, undefined, showSecrets);
  let diagnostics: Parameters<typeof yamlDiagnostics>[2] = [];
  let value: unknown;
  if (yaml.length > 0) {
    const checked = await session.envs.checkYaml(ref.org, yaml, false).catch(() => ({ diagnostics: [], environment: undefined }));
    diagnostics = checked.diagnostics;
    value = checked.environment ? toJSON({ value: checked.environment.properties ?? {} }, false) : undefined;
  }
  for (;;) {
    const edited = await editInEditor(editor, editorText(yaml, ref.name, diagnostics, value));
    if (edited.trim() === '') {
      process.stderr.write('Aborting edit due to empty definition.\n');
      return;
    }
    diagnostics = await session.envs.update(ref, edited, etag);
    if (diagnostics.length > 0) process.stderr.write(yamlDiagnostics(name, edited, diagnostics));
    if (!diagnostics.some((d) => d.severity === 'error')) {
      ctx.out('Environment updated.');
      return;
    }
    process.stderr.write('Press ENTER to continue editing or ^D to exit\n');
    if (!(await enterOrEnd())) {
      process.stderr.write('Aborting edit.\n');
      process.exitCode = 1;
      return;
    }
    yaml = edited;
    value = undefined;
  }
};

/** `env set <env> <path> <value> [--secret|--plaintext] [--string] [-f file|-]`. */
export const envSet: CommandHandler = async (ctx, args, opts) => {
  const session = await escSession(ctx);
  const { ref, rest } = await existingFromArgs(session, opts, args);
  refuseVersion(ref, 'set');
  const file = opts.file as string | undefined;
  if (!file && rest.length < 2) throw new UserError('expected a path and a value');
  if (file && rest.length < 1) throw new UserError('expected a path');
  const path = parsePath(rest[0]!);
  if (path.length === 0) throw new UserError('path must contain at least one element');
  const input = file ? await readInput(file) : rest[1]!;
  const secret = opts.secret === true;
  const node = valueNode(input, { raw: opts.string === true, secret });
  if (!secret && opts.plaintext !== true && looksLikeSecret(path, node)) {
    throw new UserError('value looks like a secret; rerun with --secret to mark it as such, or --plaintext if you meant to leave it as plaintext');
  }
  const { yaml, etag } = await session.envs.getDefinition(ref, undefined, false);
  const diagnostics = await session.envs.update(ref, setDefinitionValue(yaml, path, node), etag);
  if (diagnostics.length > 0) {
    process.stderr.write(propertyDiagnostics(diagnostics));
    if (diagnostics.some((d) => d.severity === 'error')) process.exitCode = 1;
  }
};
