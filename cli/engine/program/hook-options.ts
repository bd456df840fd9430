/**
 * The resource options a hook is told about (`pulumirpc.ResourceOptions`), read from a state as Pulumi's
 * `resourceOptionsFromState` (resource_options.go) reads them, and the hook binding of a registration.
 */
import type { HookBinding } from '../steps/hook-types.js';
import type { ResourceState } from '../state/deployment.js';
import { aliasproto, resproto } from '../rpc/proto.js';

type HooksBindingMessage = InstanceType<typeof resproto.RegisterResourceRequest.ResourceHooksBinding>;

/** The `hooks` resource option of a registration, or undefined when it binds no hook. */
export function hookBindingOf(b: HooksBindingMessage | undefined): HookBinding | undefined {
  if (!b) return undefined;
  const binding: HookBinding = {};
  const lists: [keyof HookBinding, string[]][] = [
    ['AfterCreate', b.getAfterCreateList()],
    ['AfterDelete', b.getAfterDeleteList()],
    ['AfterUpdate', b.getAfterUpdateList()],
    ['BeforeCreate', b.getBeforeCreateList()],
    ['BeforeDelete', b.getBeforeDeleteList()],
    ['BeforeUpdate', b.getBeforeUpdateList()],
    ['OnError', b.getOnErrorList()],
  ];
  for (const [type, names] of lists) if (names.length) binding[type] = [...names];
  return Object.keys(binding).length ? binding : undefined;
}

function bindingMessage(b: HookBinding): HooksBindingMessage {
  const m = new resproto.RegisterResourceRequest.ResourceHooksBinding();
  m.setBeforeCreateList(b.BeforeCreate ?? []).setAfterCreateList(b.AfterCreate ?? []);
  m.setBeforeUpdateList(b.BeforeUpdate ?? []).setAfterUpdateList(b.AfterUpdate ?? []);
  m.setBeforeDeleteList(b.BeforeDelete ?? []).setAfterDeleteList(b.AfterDelete ?? []);
  m.setOnErrorList(b.OnError ?? []);
  return m;
}

/** Go's `time.Duration.String()` of a number of seconds (`90` → `1m30s`), as Pulumi writes custom timeouts back. */
export function goDuration(seconds: number | undefined): string {
  if (!seconds) return '';
  if (seconds < 1) return `${Math.round(seconds * 1000)}ms`;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = Number((seconds % 60).toFixed(9));
  if (hours) return `${hours}h${minutes}m${rest}s`;
  if (minutes) return `${minutes}m${rest}s`;
  return `${rest}s`;
}

/** The options of a state, as Pulumi's engine sends them to hooks. */
export function resourceOptionsOf(state: ResourceState | undefined): InstanceType<typeof resproto.ResourceOptions> | undefined {
  if (!state) return undefined;
  const o = new resproto.ResourceOptions();
  o.setDependsOnList(state.dependencies ?? []);
  o.setIgnoreChangesList(state.ignoreChanges ?? []);
  o.setReplaceOnChangesList(state.replaceOnChanges ?? []);
  o.setProvider(state.provider ?? '');
  o.setDeletedWith(state.deletedWith ?? '');
  o.setImport(state.importID ?? '');
  if (state.resourceHooks && Object.keys(state.resourceHooks).length) o.setHooks(bindingMessage(state.resourceHooks));
  o.setParent(state.parent ?? '');
  o.setAliasesList((state.aliases ?? []).map((urn) => new aliasproto.Alias().setUrn(urn)));
  const t = state.customTimeouts;
  if (t && (t.create || t.update || t.delete)) {
    o.setCustomTimeouts(new resproto.RegisterResourceRequest.CustomTimeouts().setCreate(goDuration(t.create)).setUpdate(goDuration(t.update)).setDelete(goDuration(t.delete)));
  }
  o.setAdditionalSecretOutputsList(state.additionalSecretOutputs ?? []);
  o.setProtect(state.protect === true);
  o.setRetainOnDelete(state.retainOnDelete === true);
  return o;
}
