/**
 * `policy new [template]`: a new Policy Pack in the current folder (or `--dir`), as `pulumi policy new` makes one —
 * the folder must be empty unless `--force`, the template's files are copied, then its dependencies are installed
 * (not with `--generate-only`) and the next steps printed. The template is a folder holding `PulumiPolicy.yaml`, or
 * the built-in `javascript`.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { UserError } from '../../output/errors.js';
import { npmInstall } from '../../policy/npm-commands.js';
import { POLICY_TEMPLATES } from '../../policy/policy-templates.js';
import type { CommandHandler } from '../types.js';

const BUILT_IN = Object.keys(POLICY_TEMPLATES);

function targetDir(cwd: string, dir: unknown): string {
  if (typeof dir !== 'string' || dir === '') return cwd;
  const target = resolve(cwd, dir);
  mkdirSync(target, { recursive: true });
  return target;
}

/** Copies the template into `dest`; without `force`, a file that is there already stops it before anything is written. */
function copyTemplate(template: string, dest: string, cwd: string, force: boolean): void {
  const files = POLICY_TEMPLATES[template];
  if (files) {
    const name = basename(dest);
    if (!force) for (const file of Object.keys(files)) if (existsSync(join(dest, file))) throw new UserError(`${join(dest, file)} already exists`, 'Pass --force to overwrite it.');
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dest, file), text.replaceAll('${PROJECT}', name));
    return;
  }
  const source = resolve(cwd, template);
  if (!existsSync(join(source, 'PulumiPolicy.yaml'))) {
    throw new UserError(`template '${template}' not found`, `Pass a folder holding PulumiPolicy.yaml, or a built-in template: ${BUILT_IN.join(', ')}.`);
  }
  if (!force) for (const file of readdirSync(source)) if (existsSync(join(dest, file))) throw new UserError(`${join(dest, file)} already exists`, 'Pass --force to overwrite it.');
  for (const file of readdirSync(source)) if (file !== 'node_modules' && file !== '.git') cpSync(join(source, file), join(dest, file), { recursive: true, force });
}

export const policyNew: CommandHandler = async (ctx, args, opts) => {
  const dest = targetDir(ctx.cwd, opts.dir);
  if (!statSync(dest).isDirectory()) throw new UserError(`${dest} is not a folder`);
  if (opts.force !== true && readdirSync(dest).length > 0) {
    throw new UserError(`${dest} is not empty; rerun in an empty directory, pass the path to an empty directory to --dir, or use --force`);
  }
  const template = args[0];
  if (!template) {
    // stackyard keeps no catalogue to choose from, so it never prompts; the message is Pulumi's without a terminal
    const when = ctx.interactive ? '' : ' when running in non-interactive mode';
    throw new UserError(`a template must be provided${when}`, `Name a template folder, or a built-in template: ${BUILT_IN.join(', ')}.`);
  }
  copyTemplate(template, dest, ctx.cwd, opts.force === true);
  ctx.out('Created Policy Pack!');
  if (opts.generateOnly !== true) {
    ctx.out('Installing dependencies...');
    await npmInstall(dest, ctx.env);
  }
  ctx.out('Your new Policy Pack is ready to go!\n');
  if (opts.generateOnly === true) ctx.out('To install dependencies for the Policy Pack, run `npm install`\n');
  ctx.out("Once you're done editing your Policy Pack:\n");
  ctx.out(`   * To run the Policy Pack against a Pulumi program, in the directory of the Pulumi program run \`stackyard up --policy-pack ${dest}\``);
  ctx.out('   * To publish the Policy Pack, run `stackyard policy publish [org-name]`\n');
};
