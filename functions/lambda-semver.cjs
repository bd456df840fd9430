'use strict';
/*
 * What the Lambda bundles get for `semver` (an esbuild alias: LAMBDA_ALIASES in infra/lib/constructs/api-functions.ts).
 * Its one importer there is the X-Ray SDK's patcher for the v2 AWS SDK (aws-xray-sdk-core/dist/lib/patchers/aws_p.js),
 * which the Powertools Tracer loads and which calls `semver.gte` and nothing else, so the rest of the package (ranges,
 * comparators, coercion: about 20 KB of every bundle) was never called. This is semver's own `gte`: the same file of
 * the same pinned package, required by a relative path because the alias also catches `semver/...` specifiers.
 * infra/test/lambda-bundles.test.ts checks that every `semver.<name>` the bundled X-Ray SDK calls is exported here.
 */
module.exports = { gte: require('../node_modules/semver/functions/gte.js') };
