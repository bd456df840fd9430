/**
 * The Policy Pack template stackyard builds in (`policy new javascript`): a pack that runs as it is, with no build
 * step, on the `@pulumi/policy` and `@pulumi/pulumi` versions stackyard is tested with. Pulumi's own catalogue
 * (`aws-typescript` …) is downloaded from GitHub; stackyard downloads nothing and takes a template folder instead.
 */

/** The built-in templates by name: each file's text, `${PROJECT}` standing for the pack's name. */
export const POLICY_TEMPLATES: Record<string, Record<string, string>> = {
  javascript: {
    'PulumiPolicy.yaml': 'runtime: nodejs\ndescription: A minimal Policy Pack for JavaScript.\n',
    'package.json': `${JSON.stringify(
      {
        name: '${PROJECT}',
        version: '0.0.1',
        main: 'index.js',
        dependencies: { '@pulumi/policy': '^1.21.0', '@pulumi/pulumi': '^3.0.0' },
      },
      null,
      4,
    )}\n`,
    'index.js': [
      "'use strict';",
      "const { PolicyPack } = require('@pulumi/policy');",
      '',
      "new PolicyPack('${PROJECT}', {",
      '    policies: [',
      '        {',
      "            name: 'no-public-buckets',",
      "            description: 'S3 buckets must not be readable by everyone.',",
      "            enforcementLevel: 'mandatory',",
      '            validateResource: (args, reportViolation) => {',
      "                if (args.type === 'aws:s3/bucket:Bucket' && ['public-read', 'public-read-write'].includes(args.props.acl)) {",
      "                    reportViolation('You cannot set public-read or public-read-write on an S3 bucket.');",
      '                }',
      '            },',
      '        },',
      '    ],',
      '});',
      '',
    ].join('\n'),
    '.gitignore': 'node_modules/\n',
  },
};
