/** `stackyard plugin rm [kind [name [version-range]]] [--all] [--yes]`: removes plugins from the cache. */
import { UserError } from '../output/errors.js';
import { listInstalledPlugins, removePlugin } from '../plugins/cache.js';
import { describeSpec, isPluginKind } from '../plugins/types.js';
import { isValidRange, satisfiesRange } from '../plugins/version.js';
import type { CommandHandler } from './types.js';

export const pluginRm: CommandHandler = async (ctx, args, opts) => {
  const [kind, name, range] = args;
  if (kind !== undefined && !isPluginKind(kind)) {
    throw new UserError(`unrecognized plugin kind: ${kind}`, 'Use one of analyzer, language, resource, converter, tool.');
  }
  if (kind === undefined && opts.all !== true) throw new UserError("please pass --all if you'd like to remove all plugins");
  if (range !== undefined && !isValidRange(range)) throw new UserError(`invalid plugin semver: ${range}`, 'Give a version or a range such as ">=1.0.0 <2.0.0".');
  const deletes = listInstalledPlugins(ctx.env).filter(
    (p) => (!kind || p.kind === kind) && (!name || p.name === name) && (range === undefined || satisfiesRange(p.version, range)),
  );
  if (deletes.length === 0) {
    process.stderr.write('no plugins found to uninstall\n');
    return;
  }
  const listing = deletes.map((p) => `    ${p.kind} ${describeSpec(p)}`).join('\n');
  await ctx.confirm(opts.yes, 'remove them', `This will remove ${deletes.length} plugin${deletes.length === 1 ? '' : 's'} from the cache:\n${listing}\n`);
  const failures: string[] = [];
  for (const p of deletes) {
    try {
      removePlugin(p);
      process.stdout.write(`removed: ${p.kind} ${describeSpec(p)}\n`);
    } catch (err) {
      failures.push(`failed to delete ${p.kind} plugin ${describeSpec(p)}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (failures.length) throw new UserError(failures.join('\n'), 'Check the permissions of the plugin cache ($PULUMI_HOME/plugins).');
};
