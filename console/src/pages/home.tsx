import { useSession } from '../session.js';

export function HomePage() {
  const session = useSession();
  return (
    <section>
      <h1>Organizations</h1>
      <ul class="cards">
        {session.orgs.map((org) => (
          <li key={org.name}>
            <a href={`/${encodeURIComponent(org.name)}`}>{org.name}</a> {org.role && <span class="muted">({org.role})</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
