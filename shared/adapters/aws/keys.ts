/** Key builders for the Stackyard table (layout: table.ts, reasons: docs/storage-aws.md). */

export const stackPk = (stackId: string) => `STACK#${stackId}`;
export const STACK_SK = 'STACK';
export const namePk = (org: string, project: string, stack: string) => `NAME#${org}/${project}/${stack}`;
export const NAME_SK = 'NAME';
export const stacksByOrg = (org: string) => `STACKS#${org}`;
/** `#` sorts before every character allowed in names, so this orders by project, then stack name. */
export const stackSortKey = (project: string, stack: string) => `${project}#${stack}`;
export const updateSk = (updateId: string) => `UPDATE#${updateId}`;
/** Zero-padded so the sort key orders numerically. */
export const historySk = (version: number) => `HISTORY#${String(version).padStart(12, '0')}`;
export const userPk = (login: string) => `USER#${login}`;
export const USER_SK = 'USER';
export const memberSk = (org: string) => `MEMBER#${org}`;
export const userTokenSk = (id: string) => `APITOKEN#${id}`;
export const tokenHashPk = (tokenHash: string) => `APITOKEN#${tokenHash}`;
export const TOKEN_HASH_SK = 'APITOKEN';
export const orgPk = (name: string) => `ORG#${name}`;
export const ORG_SK = 'ORG';
/** An organization's mirror of a membership (the user partition holds the other), for listing its members. */
export const orgMemberSk = (login: string) => `MEMBER#${login}`;
export const teamSk = (name: string) => `TEAM#${name}`;
export const OIDC_POLICY_PREFIX = 'OIDCPOLICY#';
export const oidcPolicySk = (id: string) => `${OIDC_POLICY_PREFIX}${id}`;
/** An organization's count of trust policies, changed in the same transaction as each policy (the cap's guard). */
export const OIDC_POLICY_COUNT_SK = 'OIDCPOLICYCOUNT';
export const hooksPk = (org: string) => `HOOKS#${org}`;
/** `org` for an organization's hooks, `stack:<id>` for one stack's. */
export const hookScopeKey = (stackId: string | undefined) => (stackId === undefined ? 'org' : `stack:${stackId}`);
export const hookSk = (scope: string, name: string) => `HOOK#${scope}#${name}`;
export const deliveryPrefix = (scope: string, hook: string) => `DELIVERY#${scope}#${hook}#`;
export const outboxPk = (eventId: string) => `OUTBOX#${eventId}`;
export const OUTBOX_SK = 'EVENT';
/** gsi1 partitions of the hook items: unprocessed outbox events, due deliveries, an organization's dead letters. */
export const OUTBOX_INDEX_PK = 'OUTBOX';
export const DUE_INDEX_PK = 'HOOKDUE';
export const deadLettersPk = (org: string) => `HOOKDEAD#${org}`;
export const consoleSessionPk = (idHash: string) => `CONSOLESESSION#${idHash}`;
export const CONSOLE_SESSION_SK = 'SESSION';
export const loginCodePk = (codeHash: string) => `LOGINCODE#${codeHash}`;
export const LOGIN_CODE_SK = 'CODE';
/** An organization's audit log (`''`: the site log); the sort key is the time-ordered entry id. */
export const auditPk = (org: string) => `AUDIT#${org === '' ? '_site' : org}`;
export const auditSk = (id: string) => `AUDIT#${id}`;
/** An organization's audit intents (the outbox of actions under way), apart from its log so they are never listed. */
export const auditIntentPk = (org: string) => `AUDITINTENT#${org === '' ? '_site' : org}`;
/**
 * An organization's refusal tallies (counters of refused requests per source, route and minute), apart from its log
 * so the log's items stay create-only (docs/security.md: the IAM deny on updates of `AUDIT#` items).
 */
export const auditTallyPk = (org: string) => `AUDITTALLY#${org === '' ? '_site' : org}`;
/** An environment's record, revisions and revision tags share its partition (docs/storage-aws.md). */
export const environmentPk = (id: string) => `ENV#${id}`;
export const ENVIRONMENT_SK = 'ENV';
export const environmentNamePk = (org: string, project: string, name: string) => `ENVNAME#${org}/${project}/${name}`;
export const environmentsByOrg = (org: string) => `ENVS#${org}`;
export const REVISION_PREFIX = 'REVISION#';
/** Zero-padded so the sort key orders numerically. */
export const revisionSk = (number: number) => `${REVISION_PREFIX}${String(number).padStart(12, '0')}`;
export const REVISION_TAG_PREFIX = 'REVTAG#';
export const revisionTagSk = (name: string) => `${REVISION_TAG_PREFIX}${name}`;
export const openSessionPk = (id: string) => `ENVSESSION#${id}`;
export const OPEN_SESSION_SK = 'SESSION';
/** A stack's own approval requirement and its plans share its approvals partition (docs/plans.md). */
export const approvalsPk = (stackId: string) => `APPROVALS#${stackId}`;
export const APPROVALS_REQUIRED_SK = 'REQUIRED';
export const PLAN_PREFIX = 'PLAN#';
/** Plan ids sort by upload time, so the sort key orders a stack's plans oldest first. */
export const planSk = (id: string) => `${PLAN_PREFIX}${id}`;
export const approvalRulesPk = (org: string) => `APPROVALRULES#${org}`;
/** A rule is keyed by its pair of conditions, each possibly absent (JSON keeps the two apart whatever they hold). */
export const approvalRuleSk = (stacks: string | undefined, tag: string | undefined) => `RULE#${JSON.stringify([stacks ?? '', tag ?? ''])}`;
