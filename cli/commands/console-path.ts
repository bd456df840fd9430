/** The console's URL layout, in a file of its own so `stack ls` can name stack pages without the `console` command. */

/** The page of a stack, in Pulumi Cloud's URL layout. */
export function stackConsolePath(ref: { org: string; project: string; stack: string }): string {
  return `/${[ref.org, ref.project, ref.stack].map(encodeURIComponent).join('/')}`;
}
