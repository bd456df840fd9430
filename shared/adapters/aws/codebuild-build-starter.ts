import { CodeBuildClient, StartBuildCommand } from '@aws-sdk/client-codebuild';

/** The CodeBuild project runner builds run in (the CDK app sets it on the run launcher). */
export const RUNNER_PROJECT_VARIABLE = 'STACKYARD_RUNNER_PROJECT';

/**
 * Starts one build of the runner project with `environment` as plain-text overrides (only the run's id and its
 * sealed token: nothing secret in the clear, since a build's overrides show in `BatchGetBuilds`).
 */
export class CodeBuildBuildStarter {
  constructor(
    private readonly projectName: string,
    private readonly codebuild: CodeBuildClient = new CodeBuildClient({ requestHandler: { connectionTimeout: 2_000, requestTimeout: 10_000 } }),
  ) {}

  async start(environment: Record<string, string>): Promise<string> {
    const { build } = await this.codebuild.send(
      new StartBuildCommand({
        projectName: this.projectName,
        environmentVariablesOverride: Object.entries(environment).map(([name, value]) => ({ name, value, type: 'PLAINTEXT' })),
      }),
    );
    if (!build?.id) throw new Error(`CodeBuild started no build of ${this.projectName}.`);
    return build.id;
  }
}
