import { useMemo, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { BookOpen, Gamepad2 } from 'lucide-react';
import { buttonClass } from '../components/ui/Button';
import { ExternalLink } from '../components/home/ExternalLink';
import { CommandCard, CommandCardSkeleton } from '../components/commands/CommandCard';
import { CommandFilters } from '../components/commands/CommandFilters';
import { CommandsEmpty, CommandsError } from '../components/commands/CommandStates';
import { Pagination } from '../components/commands/Pagination';
import { PopularCommands } from '../components/commands/PopularCommands';
import { UsageGuide } from '../components/commands/UsageGuide';
import { useCopy } from '../components/commands/useCopy';
import { categoriesOf, COMMANDS_PAGE_SIZE, filterCommands, paginate } from '../lib/commands';
import { useCommandFavorites } from '../lib/favorites';
import { useSite } from '../lib/site';
import type { Command, Permission } from '../lib/types';

const SKELETONS = [0, 1, 2, 3, 4, 5];

export default function Commands() {
  const { data: site } = useSite();
  const { data: commands, isLoading, isError } = useQuery<Command[]>({ queryKey: ['/api/commands'] });
  const [search, setSearch] = useState('');
  const [category, setCategory] = useState<string | null>(null);
  const [permission, setPermission] = useState<Permission | ''>('');
  const [minRating, setMinRating] = useState(0);
  const [page, setPage] = useState(1);
  const { copy, copied } = useCopy();
  const favorites = useCommandFavorites();
  const listTop = useRef<HTMLDivElement>(null);

  const categories = useMemo(() => categoriesOf(commands ?? []), [commands]);
  const filtered = useMemo(
    () => filterCommands(commands ?? [], { search, category, permission, minRating }),
    [commands, search, category, permission, minRating],
  );
  const current = paginate(filtered, page, COMMANDS_PAGE_SIZE);

  // Every filter change goes back to page 1.
  const reset = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    setPage(1);
  };

  function goToPage(p: number) {
    setPage(p);
    listTop.current?.scrollIntoView?.({ behavior: 'smooth', block: 'start' });
  }

  function pickPopular(name: string) {
    setSearch(name);
    setCategory(null);
    setPermission('');
    setMinRating(0);
    setPage(1);
    listTop.current?.scrollIntoView?.({ behavior: 'smooth', block: 'start' });
  }

  const first = (current.page - 1) * COMMANDS_PAGE_SIZE + 1;
  const last = first + current.items.length - 1;

  return (
    <div className="mx-auto max-w-6xl space-y-8 px-4 py-8 sm:px-6 sm:py-10">
      <header className="flex flex-col gap-4 md:flex-row md:items-end md:justify-between">
        <div>
          <h1 className="text-3xl font-extrabold tracking-tight text-white sm:text-4xl">Commands Database</h1>
          <p className="mt-2 text-slate-400">
            {commands
              ? `${commands.length} commands with usage, examples and permission levels.`
              : 'Every command with usage, examples and permission levels.'}
          </p>
        </div>
        {site && (
          <div className="flex flex-wrap gap-2">
            <ExternalLink href={site.links.wiki} className={buttonClass('outline', 'sm')}>
              <BookOpen className="h-4 w-4" aria-hidden="true" />
              Official Wiki
            </ExternalLink>
            <ExternalLink href={site.links.game} className={buttonClass('default', 'sm')}>
              <Gamepad2 className="h-4 w-4" aria-hidden="true" />
              Game Page
            </ExternalLink>
          </div>
        )}
      </header>

      <div ref={listTop} className="scroll-mt-24">
        <CommandFilters
          search={search}
          onSearch={reset(setSearch)}
          categories={categories}
          category={category}
          onCategory={reset(setCategory)}
          permission={permission}
          onPermission={reset(setPermission)}
          minRating={minRating}
          onMinRating={reset(setMinRating)}
          permissions={site?.permissions}
        />
      </div>

      <section aria-labelledby="commands-list-heading" className="space-y-6">
        <h2 id="commands-list-heading" className="sr-only">
          Commands
        </h2>
        {isLoading ? (
          <div className="grid gap-4 md:grid-cols-2 lg:grid-cols-3" aria-busy="true">
            {SKELETONS.map((i) => (
              <CommandCardSkeleton key={i} />
            ))}
          </div>
        ) : isError ? (
          <CommandsError />
        ) : filtered.length === 0 ? (
          <CommandsEmpty />
        ) : (
          <>
            <p className="text-sm text-slate-400" aria-live="polite" data-testid="results-count">
              Showing {first}–{last} of {filtered.length} {filtered.length === 1 ? 'command' : 'commands'}
            </p>
            <div className="grid gap-4 md:grid-cols-2 lg:grid-cols-3">
              {current.items.map((c) => (
                <CommandCard
                  key={c.id}
                  command={c}
                  permissionMeaning={site?.permissions[c.permission]}
                  onCopy={copy}
                  copiedKey={copied}
                  isFavorite={favorites.signedIn ? favorites.isFavorite(c.id) : undefined}
                  onToggleFavorite={favorites.signedIn ? favorites.toggleFavorite : undefined}
                  onRate={favorites.signedIn ? favorites.rate : undefined}
                />
              ))}
            </div>
            <Pagination page={current.page} totalPages={current.totalPages} onPage={goToPage} />
          </>
        )}
      </section>

      <div className="grid items-start gap-6 lg:grid-cols-3">
        <PopularCommands onPick={pickPopular} />
        <div className="lg:col-span-2">{site && <UsageGuide site={site} />}</div>
      </div>
    </div>
  );
}
