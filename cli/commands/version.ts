/** `version`: the CLI's version number alone, as `pulumi version` prints it (the same as `--version`). */
import { STACKYARD_VERSION } from '../version.js';
import type { CommandHandler } from './types.js';

export const version: CommandHandler = async (ctx) => {
  ctx.out(STACKYARD_VERSION);
};
