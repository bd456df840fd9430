/**
 * The import step of the `import` resource option, as Pulumi's `ImportStep.Apply` runs it for a program: the
 * provider reads the resource by the id the program gives, and what it read (inputs and outputs) becomes the
 * resource's state, keeping the import id. The registration then goes on as for any resource in the state: a
 * diff against the program's inputs gives a same or an update step, and a replacement is refused while the
 * program still gives `import`.
 */
import type { ResourceState } from '../state/deployment.js';
import { markSecretOutputs } from '../resource/properties.js';
import type { Provider } from '../plugins/providers/provider-registry.js';
import type { RegisterGoal, StepContext } from './step-types.js';
import { packageOfType } from '../resource/urn.js';

/**
 * Adopts the resource `goal.importId` names and returns its state, recorded (with `record`) and saved before the
 * registration goes on. `build` makes a state of the registration from what was read.
 */
export async function importResource(
  ctx: StepContext,
  goal: RegisterGoal,
  urn: string,
  provider: Provider,
  build: (read: Partial<ResourceState>) => ResourceState,
  record: (state: ResourceState) => void,
): Promise<ResourceState> {
  const importId = goal.importId!;
  ctx.emit('import', urn, goal.type, 'start', { new: build({ id: importId }) });
  const read = await ctx.providerStep(() => provider.read({ urn, name: goal.name, type: goal.type }, importId, {}, {}));
  if (!read) throw new Error(`resource '${importId}' does not exist`);
  if (!read.inputs) {
    throw new Error(`provider does not support importing resources; please try updating the '${packageOfType(goal.type)}' plugin`);
  }
  const now = new Date().toISOString();
  const state = build({ id: read.id || importId, inputs: read.inputs, outputs: markSecretOutputs(read.outputs, goal.additionalSecretOutputs), created: now, modified: now });
  record(state);
  if (!ctx.preview) await ctx.snapshots.save();
  ctx.emit('import', urn, goal.type, 'done', { new: state });
  return state;
}
