/** Access: teams, stack grants and organization/team tokens. */
export * from './access-service.js';
