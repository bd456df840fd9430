export { createScheduleService, type ScheduleService } from './schedule-service.js';
export { fireDueSchedules, fireTriggeredSchedule, type SchedulerTick, type TriggeredSchedule, type TriggerOutcome } from './scheduler.js';
export type { ScheduleBody, ScheduleView } from './definitions.js';
