import { Search, X } from 'lucide-react';
import { Button } from '../ui/Button';
import { Input, INPUT_CLASS } from '../ui/Input';
import { cn } from '../ui/cn';
import { MAX_QUERY_TEXT, MIN_RATINGS, PERMISSIONS } from '../../lib/commands';
import type { Permission } from '../../lib/types';
import { PermissionBadge } from './PermissionBadge';

export interface CommandFiltersProps {
  search: string;
  onSearch: (value: string) => void;
  categories: string[];
  category: string | null;
  onCategory: (value: string | null) => void;
  permission: Permission | '';
  onPermission: (value: Permission | '') => void;
  minRating: number;
  onMinRating: (value: number) => void;
  permissions?: Record<Permission, string>;
}

const SELECT_CLASS = cn(INPUT_CLASS, 'cursor-pointer appearance-auto');

/** What the permission codes mean, next to the permission filter (the usage guide below explains them too). */
function PermissionLegend({ permissions }: { permissions: Record<Permission, string> }) {
  return (
    <dl
      id="permission-legend"
      className="flex flex-wrap items-center gap-x-4 gap-y-1.5 text-xs text-slate-400 md:col-span-3 md:col-start-1 md:row-start-2 md:justify-end"
      data-testid="permission-legend"
    >
      {PERMISSIONS.map((p) => (
        <div key={p} className="flex items-center gap-1.5">
          <dt>
            <PermissionBadge permission={p} meaning={permissions[p]} />
          </dt>
          <dd>{permissions[p]}</dd>
        </div>
      ))}
    </dl>
  );
}

export function CommandFilters(props: CommandFiltersProps) {
  const { search, onSearch, categories, category, onCategory, permission, onPermission, minRating, onMinRating, permissions } = props;
  return (
    <div className="space-y-4 rounded-xl border border-slate-800 bg-slate-900 p-4 sm:p-5">
      {/* Phones: search, permission, its legend, rating. From md: one row of the three controls, the legend
          right under the permission filter. */}
      <div className="grid gap-3 md:grid-cols-[1fr_auto_auto]">
        <div className="relative">
          <label htmlFor="command-search" className="sr-only">
            Search commands
          </label>
          <Search className="pointer-events-none absolute left-3 top-1/2 h-4 w-4 -translate-y-1/2 text-slate-400" aria-hidden="true" />
          {/* type="text" with the searchbox role: a type="search" field adds the browser's own clear
              button next to ours. Escape clears, as it does in a search field. */}
          <Input
            id="command-search"
            type="text"
            role="searchbox"
            enterKeyHint="search"
            data-search-input=""
            placeholder="Search commands..."
            value={search}
            maxLength={MAX_QUERY_TEXT}
            onInput={(e) => onSearch((e.currentTarget as HTMLInputElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape' && search) onSearch('');
            }}
            className="pl-9 pr-9"
            autoComplete="off"
            spellcheck={false}
          />
          {search && (
            <button
              type="button"
              onClick={() => onSearch('')}
              aria-label="Clear search"
              className="absolute right-2 top-1/2 -translate-y-1/2 rounded p-1 text-slate-400 hover:text-slate-200"
            >
              <X className="h-4 w-4" aria-hidden="true" />
            </button>
          )}
        </div>
        <div className="flex flex-col gap-1 md:w-56">
          <label htmlFor="permission-filter" className="sr-only">
            Permission
          </label>
          <select
            id="permission-filter"
            className={SELECT_CLASS}
            value={permission}
            onChange={(e) => onPermission((e.currentTarget as HTMLSelectElement).value as Permission | '')}
            data-testid="permission-filter"
            aria-describedby={permissions ? 'permission-legend' : undefined}
          >
            <option value="">All permissions</option>
            {PERMISSIONS.map((p) => (
              <option key={p} value={p}>
                {permissions?.[p] ? `${p} – ${permissions[p]}` : p}
              </option>
            ))}
          </select>
        </div>
        {permissions && <PermissionLegend permissions={permissions} />}
        <div className="flex flex-col gap-1 md:w-40">
          <label htmlFor="rating-filter" className="sr-only">
            Minimum rating
          </label>
          <select
            id="rating-filter"
            className={SELECT_CLASS}
            value={String(minRating)}
            onChange={(e) => onMinRating(Number((e.currentTarget as HTMLSelectElement).value) || 0)}
            data-testid="rating-filter"
          >
            <option value="0">Any rating</option>
            {MIN_RATINGS.map((r) => (
              <option key={r} value={String(r)}>
                {r}+ stars
              </option>
            ))}
          </select>
        </div>
      </div>

      {/* One scrolling row on phones: the chips arrive with the commands, and a row that wrapped would
          push the list down when they do (a layout shift). */}
      <div
        className="-mx-1 flex items-center gap-2 px-1 py-0.5 max-md:overflow-x-auto md:flex-wrap [&>*]:shrink-0"
        role="group"
        aria-label="Categories"
      >
        <Button
          size="sm"
          variant={category === null ? 'default' : 'outline'}
          onClick={() => onCategory(null)}
          aria-pressed={category === null}
        >
          All Categories
        </Button>
        {categories.map((c) => {
          const active = c === category;
          return (
            <button
              key={c}
              type="button"
              onClick={() => onCategory(active ? null : c)}
              aria-pressed={active}
              data-testid="category-chip"
              className={cn(
                'rounded-full border px-3 py-1 text-sm transition-colors',
                active
                  ? 'border-violet-500 bg-violet-600 text-white'
                  : 'border-slate-700 bg-slate-950 text-slate-300 hover:border-violet-500/60 hover:text-white',
              )}
            >
              {c}
            </button>
          );
        })}
      </div>
    </div>
  );
}
