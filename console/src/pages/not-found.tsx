/** Unknown pages, and anything of an organization the user does not belong to (the API answers 404 for both). */
export function NotFound(_props: { default?: boolean; message?: string }) {
  return (
    <section>
      <h1>Not found</h1>
      <p>{_props.message ?? 'There is nothing here, or nothing you can see. Check the address, or pick an organization above.'}</p>
    </section>
  );
}

/** The page for a failed load: 404s look like pages that do not exist, a 403 says the user may not see it, anything else says what happened. */
export function LoadError({ error }: { error: { status: number; message: string } }) {
  if (error.status === 404) return <NotFound message={error.message} />;
  if (error.status === 403) {
    return (
      <p role="alert" class="error" data-testid="forbidden">
        You may not see this: {error.message}
      </p>
    );
  }
  return (
    <p role="alert" class="error">
      {error.message}
    </p>
  );
}
