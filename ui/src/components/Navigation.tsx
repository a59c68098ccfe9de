import { useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { ExternalLink, Gamepad2, Menu, MessageCircle, Shield, ShieldAlert, UserRound } from 'lucide-react';
import { useCurrentUser } from '../lib/auth';
import { useSite } from '../lib/site';
import { NAV_ITEMS, isActivePath } from './NavItems';
import { Dialog } from './ui/Dialog';
import { Skeleton } from './ui/Skeleton';
import { cn } from './ui/cn';
import { initialOf } from '../lib/prerender';

export interface NavigationProps {
  onOpenPrivacy: () => void;
  menuOpen: boolean;
  onMenuOpenChange: (open: boolean) => void;
}

const EXTERNAL = { target: '_blank', rel: 'noopener noreferrer' } as const;

const linkBase =
  'inline-flex items-center gap-2 whitespace-nowrap rounded-lg px-3 py-2 text-sm font-medium transition-colors hover:bg-slate-800 hover:text-white';

/** The fixed top bar; under md a hamburger opens the side drawer. */
export function Navigation({ onOpenPrivacy, menuOpen, onMenuOpenChange }: NavigationProps) {
  const [location] = useLocation();
  const { data: site } = useSite();
  const { data: user } = useCurrentUser();
  const close = () => onMenuOpenChange(false);
  const barList = useRef<HTMLUListElement>(null);
  // Which ends of the bar's list have items scrolled out of sight (shown as a fade on that side).
  const [hiddenEnds, setHiddenEnds] = useState({ start: false, end: false });
  useEffect(() => {
    const list = barList.current;
    if (!list) return;
    const measure = () => {
      const start = list.scrollLeft > 1;
      const end = list.scrollLeft + list.clientWidth < list.scrollWidth - 1;
      setHiddenEnds((prev) => (prev.start === start && prev.end === end ? prev : { start, end }));
    };
    measure();
    list.addEventListener('scroll', measure, { passive: true });
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    observer?.observe(list);
    return () => {
      list.removeEventListener('scroll', measure);
      observer?.disconnect();
    };
  }, []);
  // Keep the current route's item in sight when the list is scrolled (after a resize too).
  useEffect(() => {
    const list = barList.current;
    if (!list) return;
    const reveal = () => {
      const active = list.querySelector<HTMLElement>('[aria-current="page"]');
      if (!active) return;
      const left = active.offsetLeft - list.offsetLeft;
      if (left < list.scrollLeft || left + active.offsetWidth > list.scrollLeft + list.clientWidth) {
        list.scrollLeft = left - (list.clientWidth - active.offsetWidth) / 2;
      }
    };
    reveal();
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(reveal);
    observer?.observe(list);
    return () => observer?.disconnect();
  }, [location]);

  const navLinks = (vertical: boolean) =>
    NAV_ITEMS.map((item) => {
      const active = isActivePath(item.href, location);
      const Icon = item.icon;
      return (
        <li key={item.href}>
          <Link
            href={item.href}
            aria-current={active ? 'page' : undefined}
            onClick={vertical ? close : undefined}
            className={cn(
              linkBase,
              vertical ? 'w-full py-3' : 'md:max-xl:px-2',
              active ? 'bg-violet-600/20 text-violet-200' : 'text-slate-300',
            )}
          >
            <Icon size={16} aria-hidden="true" />
            {item.label}
          </Link>
        </li>
      );
    });

  // Sign in (or the signed-in user's name): the way to an account, for favorites and ratings.
  const accountLink = (vertical: boolean) => (
    <Link
      href="/login"
      onClick={vertical ? close : undefined}
      aria-current={isActivePath('/login', location) ? 'page' : undefined}
      className={cn(linkBase, 'text-slate-300', vertical && 'w-full py-3', isActivePath('/login', location) && 'bg-slate-800')}
    >
      <UserRound size={16} aria-hidden="true" />
      <span className={vertical ? undefined : 'max-w-32 truncate max-xl:sr-only'}>{user ? user.username : 'Sign in'}</span>
    </Link>
  );

  const adminLink = (vertical: boolean) => (
    <Link
      href="/admin"
      onClick={vertical ? close : undefined}
      className={cn(
        linkBase,
        'text-red-400 hover:bg-red-950/60 hover:text-red-300',
        vertical && 'w-full py-3',
        isActivePath('/admin', location) && 'bg-red-950/60',
      )}
    >
      <ShieldAlert size={16} aria-hidden="true" />
      Admin
    </Link>
  );

  return (
    <header className="fixed inset-x-0 top-0 z-40 h-16 border-b border-slate-800 bg-slate-950/95 backdrop-blur">
      <div className="mx-auto flex h-full max-w-7xl items-center gap-2 px-4">
        <Link href="/" className="mr-2 flex min-w-0 items-center gap-2 rounded-lg font-bold whitespace-nowrap text-white md:shrink-0">
          <span aria-hidden="true" className="flex h-8 w-8 shrink-0 items-center justify-center rounded-lg bg-violet-600 text-sm">
            {site ? initialOf(site.shortName) : ''}
          </span>
          {site ? <span className="truncate md:max-lg:sr-only">{site.shortName}</span> : <Skeleton className="h-5 w-24" />}
        </Link>

        {/* More items than the bar has room for at some widths: the list scrolls sideways instead of overlapping. */}
        <nav aria-label="Main" className="hidden min-w-0 md:block">
          <ul
            ref={barList}
            className="flex items-center gap-1 overflow-x-auto p-1 [scrollbar-width:none]"
            style={fadeMask(hiddenEnds)}
            data-scrolls={hiddenEnds.start || hiddenEnds.end ? 'true' : undefined}
          >
            {navLinks(false)}
          </ul>
        </nav>

        <div className="ml-auto hidden items-center gap-1 md:flex">
          {site && (
            <a href={site.madeBy.url} {...EXTERNAL} className="hidden whitespace-nowrap px-2 text-xs text-slate-400 hover:text-slate-200 xl:inline">
              Made by <span className="font-semibold text-slate-200">{site.madeBy.name}</span>
            </a>
          )}
          <button type="button" onClick={onOpenPrivacy} className={cn(linkBase, 'cursor-pointer text-slate-300')}>
            <Shield size={16} aria-hidden="true" />
            <span className="hidden xl:inline">Privacy</span>
            <span className="sr-only xl:hidden">Privacy</span>
          </button>
          {site && (
            <>
              <a href={site.links.community} {...EXTERNAL} className={cn(linkBase, 'text-slate-300')}>
                <MessageCircle size={16} aria-hidden="true" />
                <span className="hidden 2xl:inline">Community Chat</span>
                <span className="sr-only 2xl:hidden">Community Chat</span>
              </a>
              <a href={site.links.game} {...EXTERNAL} className={cn(linkBase, 'bg-violet-600 text-white hover:bg-violet-500')}>
                <Gamepad2 size={16} aria-hidden="true" />
                <span className="max-lg:sr-only">Play Game</span>
                <ExternalLink size={12} aria-hidden="true" className="max-lg:hidden" />
              </a>
            </>
          )}
          {accountLink(false)}
          {adminLink(false)}
        </div>

        <button
          type="button"
          aria-label="Open menu"
          aria-expanded={menuOpen}
          aria-haspopup="dialog"
          onClick={() => onMenuOpenChange(true)}
          className="ml-auto inline-flex h-11 w-11 cursor-pointer items-center justify-center rounded-lg text-slate-200 hover:bg-slate-800 md:hidden"
        >
          <Menu size={22} aria-hidden="true" />
        </button>
      </div>

      <Dialog open={menuOpen} onClose={close} ariaLabel="Menu" side="left" className="md:hidden">
        <div className="mb-4 pr-10 font-bold text-white">{site?.shortName}</div>
        <nav aria-label="Main">
          <ul className="flex flex-col gap-1">{navLinks(true)}</ul>
        </nav>
        <div className="mt-4 flex flex-col gap-1 border-t border-slate-800 pt-4">
          <button
            type="button"
            onClick={() => {
              close();
              onOpenPrivacy();
            }}
            className={cn(linkBase, 'w-full cursor-pointer py-3 text-slate-300')}
          >
            <Shield size={16} aria-hidden="true" />
            Privacy
          </button>
          {site && (
            <>
              <a href={site.links.game} {...EXTERNAL} onClick={close} className={cn(linkBase, 'w-full py-3 text-slate-300')}>
                <Gamepad2 size={16} aria-hidden="true" />
                Play Game
                <ExternalLink size={12} aria-hidden="true" />
              </a>
              <a href={site.links.community} {...EXTERNAL} onClick={close} className={cn(linkBase, 'w-full py-3 text-slate-300')}>
                <MessageCircle size={16} aria-hidden="true" />
                Community Chat
                <ExternalLink size={12} aria-hidden="true" />
              </a>
            </>
          )}
          {accountLink(true)}
          {adminLink(true)}
          {site && (
            <a href={site.madeBy.url} {...EXTERNAL} className="mt-3 px-3 text-xs text-slate-400 hover:text-slate-200">
              Made by <span className="font-semibold text-slate-200">{site.madeBy.name}</span>
            </a>
          )}
        </div>
      </Dialog>
    </header>
  );
}

/** A fade on each side of the bar's list that has items out of sight, so the list reads as scrollable. */
function fadeMask({ start, end }: { start: boolean; end: boolean }): Record<string, string> | undefined {
  if (!start && !end) return undefined;
  const mask = `linear-gradient(to right, ${start ? 'transparent, black 2rem' : 'black'}, ${end ? 'black calc(100% - 2rem), transparent' : 'black'})`;
  return { maskImage: mask, WebkitMaskImage: mask };
}
