/** `convert`: refused, because converting a program needs Pulumi's converter plugins and code generators. */
import { UserError } from '../output/errors.js';
import type { CommandHandler } from './types.js';

export const convert: CommandHandler = async () => {
  throw new UserError(
    'stackyard does not convert programs: `convert` needs the converter plugins and language code generators that ship with the pulumi CLI',
    'Run `pulumi convert`; the project it writes works with stackyard unchanged.',
  );
};
