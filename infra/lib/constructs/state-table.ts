import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';

/** The parts of a DynamoDB `CreateTable` input that describe the key design (what the AWS adapter exports). */
export interface KeyDesign {
  readonly AttributeDefinitions?: ReadonlyArray<{ AttributeName?: string; AttributeType?: string }>;
  readonly KeySchema?: ReadonlyArray<{ AttributeName?: string; KeyType?: string }>;
  readonly GlobalSecondaryIndexes?: ReadonlyArray<{
    IndexName?: string;
    KeySchema?: ReadonlyArray<{ AttributeName?: string; KeyType?: string }>;
    Projection?: { ProjectionType?: string; NonKeyAttributes?: string[] };
  }>;
}

/** Props for {@link StateTable}. */
export interface StateTableProps {
  /** The single-table key design, taken from the AWS adapter so the deployed table cannot drift from the code. */
  readonly keyDesign: KeyDesign;
  /** Numeric epoch-seconds attribute that DynamoDB TTL sweeps (expired leases, tokens). */
  readonly timeToLiveAttribute: string;
  /** A change stream (the hook dispatcher's trigger); none by default. */
  readonly stream?: dynamodb.StreamViewType;
}

/**
 * The single DynamoDB table for stacks, updates, leases, users, tokens and hooks: on-demand (nothing bills by the
 * hour), point-in-time recovery, deletion protection.
 */
export class StateTable extends Construct {
  /** The table (synthesizes as `AWS::DynamoDB::GlobalTable`). */
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: StateTableProps) {
    super(scope, id);
    const { keyDesign } = props;
    const attribute = (name: string | undefined): dynamodb.Attribute => {
      const type = keyDesign.AttributeDefinitions?.find((d) => d.AttributeName === name)?.AttributeType;
      if (!name || !type) throw new Error(`key design: attribute ${name ?? '(unnamed)'} has no definition`);
      return { name, type: type as dynamodb.AttributeType };
    };
    const keyOf = (schema: KeyDesign['KeySchema'], keyType: 'HASH' | 'RANGE') => {
      const element = schema?.find((k) => k.KeyType === keyType);
      return element ? attribute(element.AttributeName) : undefined;
    };
    const partitionKey = keyOf(keyDesign.KeySchema, 'HASH');
    if (!partitionKey) throw new Error('key design: the table has no HASH key');

    this.table = new dynamodb.TableV2(this, 'Table', {
      partitionKey,
      sortKey: keyOf(keyDesign.KeySchema, 'RANGE'),
      billing: dynamodb.Billing.onDemand(),
      timeToLiveAttribute: props.timeToLiveAttribute,
      dynamoStream: props.stream,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      globalSecondaryIndexes: keyDesign.GlobalSecondaryIndexes?.map((index) => {
        const indexPartitionKey = keyOf(index.KeySchema, 'HASH');
        if (!index.IndexName || !indexPartitionKey) throw new Error('key design: an index has no name or HASH key');
        return {
          indexName: index.IndexName,
          partitionKey: indexPartitionKey,
          sortKey: keyOf(index.KeySchema, 'RANGE'),
          projectionType: (index.Projection?.ProjectionType ?? 'ALL') as dynamodb.ProjectionType,
          nonKeyAttributes: index.Projection?.NonKeyAttributes,
        };
      }),
    });
  }
}
