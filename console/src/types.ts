/** The API shapes the pages read (see functions/http/routes/console.ts and wire.ts). */

export interface LeaseView {
  updateId: string;
  holder: string;
  kind?: string;
  since: number;
  expiresAt: number;
}

export interface UpdateSummary {
  updateId: string;
  version?: number;
  kind: string;
  status: string;
  requestedBy: string;
  cancelledBy?: string;
  /** `lease-expired`: its client stopped without ending it; `policy-bypassed`: its required policy packs did not run. Either way recorded as failed. */
  endReason?: 'lease-expired' | 'policy-bypassed';
  startedAt?: number;
  endedAt?: number;
  message?: string;
  resourceChanges?: Record<string, number>;
}

export interface StackOverview {
  org: string;
  project: string;
  stack: string;
  tags: Record<string, string>;
  version: number;
  /** The caller's permission on the stack: revealing a secret and cancelling need `write`. */
  permission: 'read' | 'write' | 'admin';
  resourceCount?: number;
  lastUpdate?: UpdateSummary;
  lease?: LeaseView;
  /** The running update on record whose lease is gone: abandoned, recorded as failed at the stack's next start. */
  abandonedUpdate?: UpdateSummary;
}

/** Pulumi's UpdateInfo (times in epoch seconds), plus `cancelledBy`, `endReason`, `endMessage` and, for one update, `status` and `abandoned`. */
export interface UpdateInfo {
  updateID: string;
  kind: string;
  version?: number;
  startTime: number;
  endTime?: number;
  result: string;
  status?: string;
  dryRun?: boolean;
  message: string;
  requestedBy: string;
  cancelledBy?: string;
  endReason?: 'lease-expired' | 'policy-bypassed';
  /** With `policy-bypassed`: the required packs that did not report, or were violated, in words. */
  endMessage?: string;
  /** Still running on record, but its lease is gone (one update, read by version or id). */
  abandoned?: boolean;
  resourceChanges: Record<string, number>;
  resourceCount?: number;
}

export interface StateResource {
  urn: string;
  type: string;
  custom?: boolean;
  id?: string;
  parent?: string;
  provider?: string;
  protect?: boolean;
  delete?: boolean;
  external?: boolean;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

export interface Deployment {
  version: number;
  deployment: {
    resources?: StateResource[];
    pending_operations?: { resource: StateResource; type: string }[];
  };
}

/** One environment as `GET /api/console/environments/<org>` lists it. */
export interface EnvironmentOverview {
  org: string;
  project: string;
  name: string;
  revision: number;
  createdAt: number;
  modifiedAt: number;
  modifiedBy: string;
}

/** A revision as ESC's `versions` route lists it (`created` is an ISO time). */
export interface EnvironmentRevision {
  number: number;
  created: string;
  creatorLogin: string;
  tags: string[];
}

/** One audit entry about an environment (`…/audit`). */
export interface EnvironmentActivity {
  id: string;
  time: number;
  event: string;
  user: string;
  revision?: number;
  description: string;
  outcome?: 'unknown';
}
