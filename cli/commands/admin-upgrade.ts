import { backfillMemberMirrors, backfillTokenTtl, createAwsClients, type MemberMirrorBackfill, type TokenTtlBackfill } from '../../shared/adapters/aws/index.js';
import { InvalidInputError } from '../../shared/core/errors.js';
import type { CommandIo } from './admin-bootstrap.js';

/** What `stackyard admin upgrade` did to the table. */
export interface UpgradeResult {
  memberMirrors: MemberMirrorBackfill;
  tokenTtl: TokenTtlBackfill;
}

/**
 * `stackyard admin upgrade --table <name>`: applies the data changes a release needs to a deployed table, with the
 * caller's own AWS credentials. Idempotent, and safe while the service runs (docs/deploy.md, Upgrading). Today:
 * organization mirrors of memberships written before `org member ls` read them, and the TTL attribute on expiring
 * tokens stored before tokens had one (so DynamoDB removes them after they expire).
 */
export async function runAdminUpgrade(options: { table: string }, io: CommandIo): Promise<UpgradeResult> {
  if (!options.table) throw new InvalidInputError('Pass the table name: --table <TableName output of the stack>.');
  const clients = createAwsClients();
  try {
    const memberMirrors = await backfillMemberMirrors(clients.documents, options.table);
    const tokenTtl = await backfillTokenTtl(clients.documents, options.table);
    io.stderr(
      `Table ${options.table} is up to date: ${memberMirrors.memberships} memberships read, ` +
        `${memberMirrors.added} added to their organization's member list; ` +
        `${tokenTtl.tokens} expiring token items without a TTL, ${tokenTtl.updated} given one.`,
    );
    return { memberMirrors, tokenTtl };
  } finally {
    clients.destroy();
  }
}
