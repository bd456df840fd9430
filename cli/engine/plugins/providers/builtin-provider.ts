/**
 * The in-process `pulumi` provider: `pulumi:pulumi:StackReference` reads and the builtin functions
 * (`getResource`, `readStackOutputs`, `readStackResourceOutputs`).
 */
import type { Snapshot, ResourceState } from '../../state/deployment.js';
import type { CheckFailure, DiffResult, ResourceRef } from './provider-client.js';
import { isSecret, makeSecret, type PropertyMap } from '../../resource/properties.js';
import { STACK_TYPE } from '../../resource/urn.js';

/** Reads another stack's state (decrypted) by name; `undefined` when the stack does not exist. */
export type StackReader = (name: string) => Promise<Snapshot | undefined>;

/** Looks up a resource registered or recorded in this deployment. */
export type ResourceLookup = (urn: string) => ResourceState | undefined;

function stackOutputs(snap: Snapshot): PropertyMap {
  return snap.resources.find((r) => r.type === STACK_TYPE && !r.delete)?.outputs ?? {};
}

/** Builtin provider; its Configure and Check accept anything. */
export class BuiltinProvider {
  readonly supportsPreview = true;

  constructor(private readonly readStack: StackReader | undefined, private readonly lookup: ResourceLookup) {}

  private async stack(name: string): Promise<Snapshot> {
    if (!this.readStack) throw new Error(`stack references are not supported here (reading "${name}")`);
    const snap = await this.readStack(name);
    if (!snap) throw new Error(`unknown stack "${name}"`);
    return snap;
  }

  async checkConfig(_ref: ResourceRef, _olds: PropertyMap, news: PropertyMap): Promise<{ inputs: PropertyMap; failures: CheckFailure[] }> {
    return { inputs: news, failures: [] };
  }
  async configure(): Promise<void> {}
  async check(_ref: ResourceRef, _olds: PropertyMap, news: PropertyMap): Promise<{ inputs: PropertyMap; failures: CheckFailure[] }> {
    return { inputs: news, failures: [] };
  }
  async diff(): Promise<DiffResult> {
    return { changes: 'unknown', replaces: [], deleteBeforeReplace: false, changedKeys: [] };
  }
  async create(ref: ResourceRef): Promise<{ id: string; outputs: PropertyMap }> {
    throw new Error(`the builtin provider cannot create ${ref.type}`);
  }
  async update(ref: ResourceRef): Promise<PropertyMap> {
    throw new Error(`the builtin provider cannot update ${ref.type}`);
  }
  async delete(): Promise<void> {}

  /** Reads a StackReference: `{name, outputs, secretOutputNames}`. */
  async read(ref: ResourceRef, id: string, state: PropertyMap, inputs: PropertyMap): Promise<{ id: string; outputs: PropertyMap; inputs?: PropertyMap } | undefined> {
    if (ref.type !== 'pulumi:pulumi:StackReference') throw new Error(`the builtin provider cannot read ${ref.type}`);
    const name = typeof inputs.name === 'string' ? inputs.name : id;
    const outputs = stackOutputs(await this.stack(name));
    const secretOutputNames = Object.keys(outputs).filter((k) => isSecret(outputs[k]));
    return { id: name, inputs: { name }, outputs: { name, outputs, secretOutputNames } };
  }

  /** Builtin functions. */
  async invoke(tok: string, args: PropertyMap): Promise<{ result: PropertyMap; failures: CheckFailure[] }> {
    switch (tok) {
      case 'pulumi:pulumi:getResource': {
        const urn = String(args.urn ?? '');
        const r = this.lookup(urn);
        if (!r) throw new Error(`unknown resource ${urn}`);
        return { result: { urn: r.urn, id: r.id ?? '', state: r.outputs ?? {} }, failures: [] };
      }
      case 'pulumi:pulumi:readStackOutputs': {
        const name = String(args.stackName ?? args.name ?? '');
        const outputs = stackOutputs(await this.stack(name));
        const secretOutputNames = Object.keys(outputs).filter((k) => isSecret(outputs[k]));
        return { result: { name, outputs, secretOutputNames }, failures: [] };
      }
      case 'pulumi:pulumi:readStackResourceOutputs': {
        const name = String(args.stackName ?? args.name ?? '');
        const snap = await this.stack(name);
        const outputs: PropertyMap = {};
        for (const r of snap.resources) {
          if (r.delete) continue;
          outputs[r.urn] = makeSecret({ type: r.type, outputs: r.outputs ?? {} });
        }
        return { result: { name, outputs }, failures: [] };
      }
      default:
        throw new Error(`unknown builtin function ${tok}`);
    }
  }

  async close(): Promise<void> {}
}
