/**
 * The generated gRPC stubs shipped inside `@pulumi/pulumi/proto`. They are CommonJS modules whose exports are
 * built at run time (not statically detectable), so they are loaded with `require` and typed through their `.d.ts`.
 * Struct comes from the same `google-protobuf` copy the stubs use; mixing copies breaks serialization.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** `pulumirpc` resource monitor messages. */
export const resproto = require('@pulumi/pulumi/proto/resource_pb.js') as typeof import('@pulumi/pulumi/proto/resource_pb.js');
/** Resource monitor service definition. */
export const resrpc = require('@pulumi/pulumi/proto/resource_grpc_pb.js') as typeof import('@pulumi/pulumi/proto/resource_grpc_pb.js');
/** Engine service messages. */
export const engproto = require('@pulumi/pulumi/proto/engine_pb.js') as typeof import('@pulumi/pulumi/proto/engine_pb.js');
/** Engine service definition. */
export const engrpc = require('@pulumi/pulumi/proto/engine_grpc_pb.js') as typeof import('@pulumi/pulumi/proto/engine_grpc_pb.js');
/** Resource provider messages. */
export const provproto = require('@pulumi/pulumi/proto/provider_pb.js') as typeof import('@pulumi/pulumi/proto/provider_pb.js');
/** Resource provider client. */
export const provrpc = require('@pulumi/pulumi/proto/provider_grpc_pb.js') as typeof import('@pulumi/pulumi/proto/provider_grpc_pb.js');
/** Language runtime messages. */
export const langproto = require('@pulumi/pulumi/proto/language_pb.js') as typeof import('@pulumi/pulumi/proto/language_pb.js');
/** Language runtime client. */
export const langrpc = require('@pulumi/pulumi/proto/language_grpc_pb.js') as typeof import('@pulumi/pulumi/proto/language_grpc_pb.js');
/** Analyzer (policy pack) messages. */
export const anproto = require('@pulumi/pulumi/proto/analyzer_pb.js') as typeof import('@pulumi/pulumi/proto/analyzer_pb.js');
/** Analyzer (policy pack) client. */
export const anrpc = require('@pulumi/pulumi/proto/analyzer_grpc_pb.js') as typeof import('@pulumi/pulumi/proto/analyzer_grpc_pb.js');
/** Plugin info messages. */
export const pluginproto = require('@pulumi/pulumi/proto/plugin_pb.js') as typeof import('@pulumi/pulumi/proto/plugin_pb.js');
/** Callback (transforms) messages. */
export const cbproto = require('@pulumi/pulumi/proto/callback_pb.js') as typeof import('@pulumi/pulumi/proto/callback_pb.js');
/** Callback client. */
export const cbrpc = require('@pulumi/pulumi/proto/callback_grpc_pb.js') as typeof import('@pulumi/pulumi/proto/callback_grpc_pb.js');
/** Alias messages. */
export const aliasproto = require('@pulumi/pulumi/proto/alias_pb.js') as typeof import('@pulumi/pulumi/proto/alias_pb.js');
/** Error detail messages of component calls (InputPropertiesError). */
export const errproto = require('@pulumi/pulumi/proto/errors_pb.js') as typeof import('@pulumi/pulumi/proto/errors_pb.js');
/** Error detail messages (ErrorResourceInitFailed). */
export const statusproto = require('@pulumi/pulumi/proto/status_pb.js') as typeof import('@pulumi/pulumi/proto/status_pb.js');

const requireFromStubs = createRequire(require.resolve('@pulumi/pulumi/proto/resource_pb.js'));
/**
 * `@grpc/grpc-js` as the stubs load it. Clients built by the stubs check credentials with `instanceof`, so the
 * engine must use this same copy even when it is bundled.
 */
export const grpc = requireFromStubs('@grpc/grpc-js') as typeof import('@grpc/grpc-js');
/** `google.protobuf.Struct` from the stubs' own google-protobuf copy. */
export const structproto = requireFromStubs('google-protobuf/google/protobuf/struct_pb.js') as typeof import('google-protobuf/google/protobuf/struct_pb.js');
/** `google.protobuf.Empty` from the stubs' own google-protobuf copy. */
export const emptyproto = requireFromStubs('google-protobuf/google/protobuf/empty_pb.js') as typeof import('google-protobuf/google/protobuf/empty_pb.js');
/** `google.protobuf.Any` from the stubs' own google-protobuf copy. */
export const anyproto = requireFromStubs('google-protobuf/google/protobuf/any_pb.js') as typeof import('google-protobuf/google/protobuf/any_pb.js');

/** Struct message instance type. */
export type Struct = InstanceType<typeof structproto.Struct>;
