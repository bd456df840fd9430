/**
 * `GetDeploymentInfo`: the run as the monitor describes it to a program (Pulumi's `resmon.GetDeploymentInfo`), the
 * same project, stack, organization, config, dry-run flag and parallelism that Construct and Call carry.
 */
import { resproto } from '../rpc/proto.js';
import { componentConfig, type ComponentRunInfo } from './component-info.js';
import { supportedMonitorFeatures } from './features.js';

/** The `DeploymentInfo` answer for a run. */
export function deploymentInfo(info: Omit<ComponentRunInfo, 'monitorAddress'>): InstanceType<typeof resproto.DeploymentInfo> {
  const { values, secretKeys } = componentConfig(info.config);
  const res = new resproto.DeploymentInfo().setProject(info.project).setStack(info.stack).setOrganization(info.organization);
  for (const [k, v] of values) res.getConfigMap().set(k, v);
  return res.setConfigsecretkeysList(secretKeys).setDryrun(info.dryRun).setParallel(info.parallel).setSupportedfeaturesList(supportedMonitorFeatures());
}
