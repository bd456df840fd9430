import { stackPage } from '../api.js';

/** The views of one stack, as Pulumi Cloud's stack tabs; `current` is marked for assistive technology. */
const TABS = [
  { path: '', label: 'Overview' },
  { path: '/resources', label: 'Resources' },
  { path: '/deployments', label: 'Deployments' },
  { path: '/drift', label: 'Drift' },
] as const;

/** The breadcrumb and the tab links every page of a stack starts with. */
export function StackTabs({ org, project, stack, current }: { org: string; project: string; stack: string; current: (typeof TABS)[number]['label'] }) {
  const page = stackPage(org, project, stack);
  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={`/${encodeURIComponent(org)}`}>{org}</a> / <a href={`/${encodeURIComponent(org)}/${encodeURIComponent(project)}`}>{project}</a> /{' '}
        <a href={page}>{stack}</a>
      </nav>
      <nav aria-label="Stack" class="tabs">
        <ul>
          {TABS.map((tab) => (
            <li key={tab.label}>
              <a href={`${page}${tab.path}`} aria-current={tab.label === current ? 'page' : undefined}>
                {tab.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
    </>
  );
}
