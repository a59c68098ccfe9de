import { useEffect, useMemo, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useHistoryState } from 'wouter/use-browser-location';
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
import {
  categoriesOf,
  COMMANDS_PAGE_SIZE,
  COMMANDS_PAGE_SIZE_WIDE,
  commandsQueryString,
  pageAfterResize,
  paginate,
  parseCommandsQuery,
  resolveCommandsView,
  WIDE_SCREEN_MEDIA,
  type CommandsQuery,
} from '../lib/commands';
import { useCommandFavorites } from '../lib/favorites';
import { useMediaQuery } from '../lib/mediaQuery';
import { useQueryString, type QueryWriteOptions } from '../lib/queryState';
import { useSite } from '../lib/site';
import type { Command } from '../lib/types';

const SKELETONS = [0, 1, 2, 3, 4, 5];

/** history.state of an address rewritten to show a linked command its filters hid: the note stays with the entry. */
interface ClearedFilters {
  filtersClearedFor: string;
}

/**
 * The commands database. Its search, filters and page live in the address (lib/commands.ts
 * parseCommandsQuery), so a reload, a pasted link, Back and Forward all show the same list;
 * ?command=NAME shows that command on its page, highlighted.
 */
export default function Commands() {
  const { data: site } = useSite();
  const { data: commands, isLoading, isError } = useQuery<Command[]>({ queryKey: ['/api/commands'] });
  const [queryString, setQueryString] = useQueryString();
  const pageSize = useMediaQuery(WIDE_SCREEN_MEDIA) ? COMMANDS_PAGE_SIZE_WIDE : COMMANDS_PAGE_SIZE;
  const { copy, copied } = useCopy();
  const favorites = useCommandFavorites();
  const listTop = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLDivElement>(null);

  const categories = useMemo(() => categoriesOf(commands ?? []), [commands]);
  // Until the commands arrive the categories are unknown, so the address's category is kept as written.
  const query = useMemo(() => parseCommandsQuery(queryString, commands ? { categories } : {}), [queryString, commands, categories]);
  const view = useMemo(() => resolveCommandsView(commands ?? [], query, pageSize), [commands, query, pageSize]);
  const { filter, filtered, current, highlight } = view;
  const entryState = useHistoryState<ClearedFilters | null>();

  // The address follows what is shown: an unknown category or a page past the end is rewritten, and
  // when the page size changes (a phone turned, a window resized) the page that keeps the first card
  // in view is written. Replaced, not added: these are corrections, not steps to go Back through.
  const sizeSeen = useRef(pageSize);
  useEffect(() => {
    const oldSize = sizeSeen.current;
    sizeSeen.current = pageSize;
    if (!commands) return;
    let target = view.canonical;
    if (oldSize !== pageSize && !view.highlight) {
      const page = paginate(view.filtered, pageAfterResize(query.page, oldSize, pageSize), pageSize).page;
      target = commandsQueryString({ ...view.filter, page, per: pageSize, command: view.missing });
    }
    const state: ClearedFilters | null = view.filtersCleared && view.highlight ? { filtersClearedFor: view.highlight.name } : null;
    if (target !== queryString) setQueryString(target, { replace: true, state });
  }, [commands, view, query.page, pageSize, queryString, setQueryString]);

  // A linked command is scrolled to and focused once per link (after the shell's scroll to the top).
  const highlightId = highlight?.id ?? null;
  const shown = useRef<number | null>(null);
  useEffect(() => {
    if (highlightId === null || shown.current === highlightId) {
      shown.current = highlightId;
      return;
    }
    shown.current = highlightId;
    const frame = requestAnimationFrame(() => {
      const card = list.current?.querySelector<HTMLElement>('[data-highlighted="true"]');
      card?.scrollIntoView?.({ block: 'center' });
      card?.focus({ preventScroll: true });
    });
    return () => cancelAnimationFrame(frame);
  }, [highlightId]);

  /** A new address from the filters in effect: back to page 1, and the linked command let go. */
  function update(next: Partial<CommandsQuery>, options?: QueryWriteOptions) {
    setQueryString(commandsQueryString({ ...filter, page: 1, per: pageSize, ...next, command: null }), options);
  }

  // Typing changes the address in place (no history entry per keystroke); starting or clearing a search,
  // a filter choice and a page are steps Back returns to.
  const onSearch = (search: string) => update({ search }, { replace: filter.search !== '' && search !== '' });

  function goToPage(page: number) {
    update({ page });
    listTop.current?.scrollIntoView?.({ behavior: 'smooth', block: 'start' });
  }

  function pickPopular(name: string) {
    setQueryString(commandsQueryString({ search: name }));
    listTop.current?.scrollIntoView?.({ behavior: 'smooth', block: 'start' });
  }

  const first = (current.page - 1) * pageSize + 1;
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
          search={filter.search}
          onSearch={onSearch}
          categories={categories}
          category={filter.category}
          onCategory={(category) => update({ category })}
          permission={filter.permission}
          onPermission={(permission) => update({ permission })}
          minRating={filter.minRating}
          onMinRating={(minRating) => update({ minRating })}
          permissions={site?.permissions}
        />
      </div>

      <section aria-labelledby="commands-list-heading" className="space-y-6">
        <h2 id="commands-list-heading" className="sr-only">
          Commands
        </h2>
        {commands && view.missing && (
          <p role="status" className="rounded-lg border border-slate-700 bg-slate-900 px-4 py-3 text-sm text-slate-300" data-testid="command-not-found">
            Sorry, no command is named “{view.missing}”. Try the search, or browse the list below.
          </p>
        )}
        {highlight && (view.filtersCleared || entryState?.filtersClearedFor === highlight.name) && (
          <p role="status" className="text-sm text-slate-400" data-testid="filters-cleared">
            The filters were cleared to show {highlight.name}.
          </p>
        )}
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
            <div ref={list} className="grid gap-4 md:grid-cols-2 lg:grid-cols-3">
              {current.items.map((c) => (
                <CommandCard
                  key={c.id}
                  command={c}
                  highlighted={c.id === highlightId}
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
