import { useEffect, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Gamepad2, MessagesSquare, RefreshCw } from 'lucide-react';
import { UpdatesCard } from '../components/discord/UpdatesCard';
import { Button } from '../components/ui/Button';
import { Skeleton } from '../components/ui/Skeleton';
import {
  EMPTY_COMMUNITY_HIGHLIGHTS,
  EMPTY_GAME_UPDATES,
  REFRESH_SPINNER_MS,
  productsOf,
  updatesKey,
  type ProductUpdates,
} from '../lib/discord';
import { POLL } from '../lib/queryClient';
import { useSite } from '../lib/site';

function Product({ product, title, showTitle }: { product: string; title: string; showTitle: boolean }) {
  const { data, isError } = useQuery<ProductUpdates>({ queryKey: updatesKey(product), refetchInterval: POLL.updates });
  const heading = `${product}-heading`;
  return (
    <section aria-labelledby={showTitle ? heading : undefined} aria-label={showTitle ? undefined : title} className="space-y-4">
      {showTitle && (
        <h2 id={heading} className="text-2xl font-bold tracking-tight text-white">
          {data?.title ?? title}
        </h2>
      )}
      {isError && !data ? (
        <p role="alert" className="text-sm text-red-400">
          The updates could not be loaded. They will appear when the server answers.
        </p>
      ) : !data ? (
        <div role="status" aria-label="Loading updates" className="grid gap-4 md:grid-cols-2">
          <Skeleton className="h-40 rounded-xl" />
          <Skeleton className="h-40 rounded-xl" />
        </div>
      ) : (
        <>
          {!data.configured && (
            <p className="rounded-lg border border-slate-800 bg-slate-900/60 px-4 py-3 text-sm text-slate-300">
              This site has not connected its Discord channels yet, so there is nothing to summarise.
            </p>
          )}
          <div className="grid gap-4 md:grid-cols-2">
            <UpdatesCard
              id={`${product}-game`}
              title="Game Updates"
              icon={Gamepad2}
              lines={data.gameUpdates}
              empty={EMPTY_GAME_UPDATES}
              source={data.gameUpdatesSource ?? null}
              level={showTitle ? 3 : 2}
            />
            <UpdatesCard
              id={`${product}-community`}
              title="Community Highlights"
              icon={MessagesSquare}
              lines={data.communityHighlights}
              empty={EMPTY_COMMUNITY_HIGHLIGHTS}
              source={data.communityHighlightsSource ?? null}
              level={showTitle ? 3 : 2}
            />
          </div>
        </>
      )}
    </section>
  );
}

export default function DiscordNews() {
  const { data: site, isError } = useSite();
  const queryClient = useQueryClient();
  const [refreshing, setRefreshing] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const products = productsOf(site);

  const refresh = () => {
    setRefreshing(true);
    void queryClient.refetchQueries({ queryKey: ['/api/discord'] });
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setRefreshing(false), REFRESH_SPINNER_MS);
  };

  return (
    <div className="mx-auto max-w-6xl space-y-8 px-4 py-8 sm:px-6 sm:py-10">
      <header className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-3xl font-extrabold tracking-tight text-white sm:text-4xl">Game Updates &amp; Community Highlights</h1>
          <p className="mt-2 text-slate-400">
            AI-summarised news from the Discord channels{site ? ` of ${site.name}` : ''}. Updates refresh every 2 minutes.
          </p>
        </div>
        <Button variant="outline" onClick={refresh} disabled={refreshing} aria-live="polite">
          <RefreshCw size={16} aria-hidden="true" className={refreshing ? 'animate-spin' : undefined} />
          {refreshing ? 'Refreshing...' : 'Refresh'}
        </Button>
      </header>
      {site ? (
        products.length > 0 ? (
          products.map((p) => <Product key={p.product} {...p} showTitle={products.length > 1} />)
        ) : (
          <div className="grid gap-4 md:grid-cols-2">
            <UpdatesCard id="none-game" title="Game Updates" icon={Gamepad2} lines={[]} empty={EMPTY_GAME_UPDATES} source={null} />
            <UpdatesCard id="none-community" title="Community Highlights" icon={MessagesSquare} lines={[]} empty={EMPTY_COMMUNITY_HIGHLIGHTS} source={null} />
          </div>
        )
      ) : isError ? (
        <p role="alert" className="text-sm text-red-400">Failed to load the site settings. Please try again later.</p>
      ) : (
        <Skeleton className="h-40 rounded-xl" />
      )}
    </div>
  );
}
