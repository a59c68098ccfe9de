import { Card } from '../ui/Card';
import { PERMISSIONS } from '../../lib/commands';
import type { SiteSettings } from '../../lib/types';
import { PermissionBadge } from './PermissionBadge';

/** How to aim a command (target selectors) and what the permission levels mean. */
export function UsageGuide({ site }: { site: SiteSettings }) {
  return (
    <Card className="p-5" data-testid="usage-guide">
      <h2 className="text-xl font-bold text-white">Usage Guide</h2>
      <div className="mt-4 grid gap-6 sm:grid-cols-2">
        <div>
          <h3 className="font-semibold text-slate-200">Target selectors</h3>
          <dl className="mt-2 space-y-2">
            {site.selectors.map((s) => (
              <div key={s.selector} className="flex flex-col gap-1 sm:flex-row sm:gap-3">
                <dt className="shrink-0 sm:w-28">
                  <code className="rounded bg-slate-800 px-1.5 py-0.5 font-mono text-sm text-violet-200">{s.selector}</code>
                </dt>
                <dd className="min-w-0 text-sm text-slate-400">{s.description}</dd>
              </div>
            ))}
          </dl>
        </div>
        <div>
          <h3 className="font-semibold text-slate-200">Permission levels</h3>
          <dl className="mt-2 space-y-2">
            {PERMISSIONS.map((p) => (
              <div key={p} className="flex items-center gap-3">
                <dt className="w-12 shrink-0">
                  <PermissionBadge permission={p} meaning={site.permissions[p]} />
                </dt>
                <dd className="text-sm text-slate-400">{site.permissions[p]}</dd>
              </div>
            ))}
          </dl>
        </div>
      </div>
    </Card>
  );
}
