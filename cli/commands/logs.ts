/**
 * `logs`: Pulumi's aggregates resource logs through providers' log readers (CloudWatch Logs for AWS). Stackyard has
 * none, so it says so and fails, rather than print nothing as if the resources had logged nothing.
 */
import { UserError } from '../output/errors.js';
import type { CommandHandler } from './types.js';

export const logs: CommandHandler = async () => {
  throw new UserError(
    "stackyard has no log provider: it cannot collect the logs of a stack's resources",
    'Read them where your cloud keeps them (for AWS, CloudWatch Logs: `aws logs tail <log group> --since 1h`).',
  );
};
