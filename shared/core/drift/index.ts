export { createDriftService, MAX_DRIFT_PAGE, type DriftRunsPage, type DriftService } from './drift-service.js';
export type { DriftRunView, DriftStatusView } from './views.js';
