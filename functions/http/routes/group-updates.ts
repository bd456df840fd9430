import { routesOf, type Route } from '../router.js';
import { updateRoutes } from './updates.js';

/** The updates function's routes: an update's lifecycle, its checkpoints, journal and events. */
export const UPDATES_GROUP_ROUTES: readonly Route[] = routesOf('updates', updateRoutes);
