import { Logger } from '@aws-lambda-powertools/logger';
import type { LogLevel } from '@aws-lambda-powertools/logger/types';
import type { HandlerGroup } from './http/router.js';

/**
 * The structured JSON logger of one handler group. Log calls pass only names, ids, statuses and error messages:
 * never an Authorization header, a token, a secret or a request body.
 */
export function createApiLogger(group: HandlerGroup, options: { logLevel?: LogLevel } = {}): Logger {
  return new Logger({
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'stackyard',
    logLevel: options.logLevel,
    persistentKeys: { handlerGroup: group },
  });
}
