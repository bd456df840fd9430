import { describe, expect, it } from 'vitest';
import type { DiagEvent, StepEvent } from '../display/events.js';
import { UNKNOWN } from '../resource/properties.js';
import { collectImportFile } from './preview-import-file.js';

const P = 'urn:pulumi:dev::proj::';
const STACK = `${P}pulumi:pulumi:Stack::proj-dev`;
const DEFAULT = `${P}pulumi:providers:aws::default_6_1_0`;

/** A step's start, as the engine reports it. */
const start = (op: StepEvent['op'], urn: string, state: Record<string, unknown>): StepEvent => {
  const type = urn.split('::')[2]!.split('$').pop()!;
  return { op, urn, type, phase: 'start', preview: true, new: { urn, type, custom: true, ...state } };
};

describe('collectImportFile (Pulumi buildImportFile)', () => {
  it('turns creates into entries, names existing parents and providers in the name table, and leaves the stack and default providers out', async () => {
    // Prepare
    const warnings: DiagEvent[] = [];
    const collector = collectImportFile((d) => warnings.push(d));
    const events: StepEvent[] = [
      start('create', STACK, { custom: false }),
      start('create', DEFAULT, { inputs: { version: '6.1.0' } }),
      start('same', `${P}my:index:Group::web`, { custom: false, parent: STACK }),
      start('same', `${P}pulumi:providers:aws::east`, { inputs: { region: 'us-east-1' } }),
      start('create', `${P}pulumi:providers:aws::west`, { inputs: { region: 'us-west-2', token: UNKNOWN } }),
      start('create', `${P}my:index:Group$aws:s3/bucket:Bucket::logs`, { parent: `${P}my:index:Group::web`, provider: `${P}pulumi:providers:aws::east::e1` }),
      start('create', `${P}aws:s3/bucket:Bucket::data`, { parent: STACK, provider: `${DEFAULT}::d1` }),
      start('create', `${P}aws:sqs/queue:Queue::data`, { parent: STACK, provider: `${P}pulumi:providers:aws::west::${UNKNOWN}` }),
    ];

    // Act
    for (const e of events) collector.events.step!(e);
    const file = await collector.file(async (values) => ({ encoded: Object.keys(values).join(',') }));

    // Assess
    expect(file.nameTable).toEqual({ web: `${P}my:index:Group::web`, east: `${P}pulumi:providers:aws::east` });
    expect(file.resources).toEqual([
      { type: 'pulumi:providers:aws', name: 'west', inputs: { encoded: 'region' } },
      { type: 'aws:s3/bucket:Bucket', name: 'logs', id: '<PLACEHOLDER>', parent: 'web', provider: 'east' },
      { type: 'aws:s3/bucket:Bucket', name: 'data', id: '<PLACEHOLDER>', version: '6.1.0' },
      { type: 'aws:sqs/queue:Queue', name: 'dataQueue', id: '<PLACEHOLDER>', provider: 'west', logicalName: 'data' },
    ]);
    expect(warnings.map((w) => w.message)).toEqual([
      `configuration of provider ${P}pulumi:providers:aws::west is not known during the preview and has been omitted from the import file, fill it in before importing: token`,
    ]);
  });
});
