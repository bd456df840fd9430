/**
 * Packages esbuild leaves out of the CLI bundle, each with the reason. Empty entries are not allowed:
 * anything listed here must be resolvable from node_modules at run time.
 */
export const externals = {
  // Loads its generated protobuf modules and native-free proto files by path at run time; bundling breaks them.
  '@pulumi/pulumi': 'requires files by computed path (proto, runtime modules)',
  '@grpc/grpc-js': 'kept next to @pulumi/pulumi so both share one gRPC instance',
  'google-protobuf': 'generated code mutates the shared global protobuf namespace; must be one copy with @pulumi/pulumi',
};
