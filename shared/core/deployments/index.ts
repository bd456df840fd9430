export { createDeploymentService, DEPLOYMENT_OPERATIONS, type CreateRunRequest, type DeploymentService } from './deployment-service.js';
export type { DeploymentLogsView, DeploymentRunView, RunUserView } from './views.js';
