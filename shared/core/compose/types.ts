import type { AccessService } from '../access/index.js';
import type { ApprovalService } from '../approvals/index.js';
import type { AuditService } from '../audit/index.js';
import type { ConsoleService } from '../console/index.js';
import type { DeploymentService, RunAgentService } from '../deployments/index.js';
import type { DriftService } from '../drift/index.js';
import type { ScheduleService } from '../schedules/index.js';
import type { PushWebhookService } from '../push-webhooks/index.js';
import type { EnvironmentService } from '../environments/index.js';
import type { HookService } from '../hooks/index.js';
import type { IdentityService } from '../identity/index.js';
import type { PolicyService } from '../policy/index.js';
import type { OidcService } from '../oidc/index.js';
import type { SecretService } from '../secrets/index.js';
import type { StackRestoreService, StackService } from '../stacks/index.js';
import type { StateDiffService } from '../state-diff/index.js';
import type { UpdateService } from '../updates/index.js';

export type * from '../kernel/principal.js';
export type * from '../checkpoints/types.js';
export type * from '../stacks/types.js';
export type * from '../state-diff/types.js';
export type * from '../updates/types.js';
export type * from '../identity/types.js';
export type * from '../secrets/types.js';
export type * from '../environments/types.js';

/**
 * The use cases shared by the HTTP API (functions/) and the CLI's local backend. They take the caller as a
 * `Principal` and enforce authorization themselves: a stack of an organization the principal does not belong to
 * is reported as not found, so names cannot be probed.
 */
export interface Services {
  restore: StackRestoreService;
  identity: IdentityService;
  access: AccessService;
  audit: AuditService;
  oidc: OidcService;
  stacks: StackService;
  stateDiff: StateDiffService;
  updates: UpdateService;
  secrets: SecretService;
  hooks: HookService;
  console: ConsoleService;
  environments: EnvironmentService;
  deployments: DeploymentService;
  /** A run's own side, for a runner holding only the run's token. */
  runAgent: RunAgentService;
  drift: DriftService;
  approvals: ApprovalService;
  schedules: ScheduleService;
  /** Push to deploy: signed git webhooks that queue runs. */
  pushWebhooks: PushWebhookService;
  policies: PolicyService;
}
