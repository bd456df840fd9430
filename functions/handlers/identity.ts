import { lambdaHandler } from '../composition.js';

/** API Gateway entry point of the identity routes (it can serve every route; see docs/api.md, "Handler grouping"). */
export const handler = lambdaHandler('identity');
