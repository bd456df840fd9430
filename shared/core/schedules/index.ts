export { createScheduleService, type ScheduleService } from './schedule-service.js';
export { fireDueSchedules, type SchedulerTick } from './scheduler.js';
export type { ScheduleBody, ScheduleView } from './definitions.js';
