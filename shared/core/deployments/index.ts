export { createDeploymentService, type DeploymentService } from './deployment-service.js';
export { DEPLOYMENT_OPERATIONS, type CreateRunRequest } from './run-queue.js';
export type { DeploymentLogsView, DeploymentRunView, RunUserView } from './views.js';
export { createRunAgentService, type RunAgentService } from './run-agent.js';
