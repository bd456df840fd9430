/** Unknown pages, and anything of an organization the user does not belong to (the API answers 404 for both). */
export function NotFound(_props: { default?: boolean; message?: string }) {
  return (
    <section>
      <h1>Not found</h1>
      <p>{_props.message ?? 'There is nothing here, or nothing you can see. Check the address, or pick an organization above.'}</p>
    </section>
  );
}

/** The page for a failed load: 404s look like pages that do not exist, anything else says what happened. */
export function LoadError({ error }: { error: { status: number; message: string } }) {
  if (error.status === 404) return <NotFound message={error.message} />;
  return (
    <p role="alert" class="error">
      {error.message}
    </p>
  );
}
