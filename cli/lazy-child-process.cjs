// What commander gets for `require('node:child_process')` in the CLI bundle (scripts/build.mjs): the real module,
// loaded on first use. Commander needs it only to start executable subcommands, which stackyard has none of, and
// loading it costs about 3 ms of CPU on every start.
module.exports = new Proxy({}, { get: (_target, name) => require('node:child_process')[name] });
