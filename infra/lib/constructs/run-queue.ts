import { Duration } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';

/** Props for {@link RunQueue}. */
export interface RunQueueProps {
  /** How long a launcher may hold a notice before SQS hands it out again (six times the launcher's timeout). */
  readonly visibilityTimeout?: Duration;
  /** Receives before a notice goes to the dead-letter queue (a launcher that failed on it that often). */
  readonly maxReceiveCount?: number;
}

/**
 * The queue of deployment runs (docs/deployments.md, "On AWS"): the API sends one notice per queued run, the launcher
 * starts a CodeBuild build for it. Encrypted at rest (SQS-managed keys: no KMS request per message, no key to pay
 * for), TLS only, and notices a launcher failed on `maxReceiveCount` times land in a dead-letter queue kept 14 days.
 * SQS bills per request: an idle queue costs nothing.
 */
export class RunQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: RunQueueProps = {}) {
    super(scope, id);
    this.deadLetters = new sqs.Queue(this, 'DeadLetters', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    NagSuppressions.addResourceSuppressions(this.deadLetters, [
      {
        id: 'AwsSolutions-SQS3',
        reason: 'This queue is the run queue\'s dead-letter queue: it keeps notices a launcher failed on for an operator to read.',
      },
    ]);
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: props.visibilityTimeout ?? Duration.minutes(6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: props.maxReceiveCount ?? 5 },
    });
  }

  /** Lets `role` announce runs (sqs:SendMessage on this queue alone). */
  grantAnnounce(role: iam.IGrantable): void {
    this.queue.grantSendMessages(role);
  }
}
