/**
 * `STACKYARD_AUDIT_GRACE_SECONDS`: how long serve lets a request hold an audit intent before the next read of the log
 * publishes it as `outcome: unknown` (default AUDIT_INTENT_GRACE_MS, 5 minutes). Only storage shared by several hosts
 * needs the wait (DynamoDB); keep it longer than any request may run, or a slow request's entry is published early as
 * unknown (still exactly one entry).
 */
export function auditGraceFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.STACKYARD_AUDIT_GRACE_SECONDS?.trim();
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (!Number.isSafeInteger(seconds) || seconds < 1) {
    throw new Error(`STACKYARD_AUDIT_GRACE_SECONDS must be a whole number of seconds, at least 1 (got '${raw.slice(0, 40)}').`);
  }
  return seconds * 1000;
}
