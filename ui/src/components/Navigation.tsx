import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { ChevronDown, ExternalLink, Gamepad2, Keyboard, Menu, MessageCircle, Shield, ShieldAlert, UserRound } from 'lucide-react';
import { useCurrentUser } from '../lib/auth';
import { useSite } from '../lib/site';
import { NAV_ITEMS, isActivePath, itemsThatFit, type NavItem } from './NavItems';
import { Dialog } from './ui/Dialog';
import { Skeleton } from './ui/Skeleton';
import { cn } from './ui/cn';
import { initialOf } from '../lib/prerender';
import { useThemeChoice } from '../lib/theme';
import { ThemeChoices, ThemeCycleButton } from './ThemeControl';

export interface NavigationProps {
  onOpenPrivacy: () => void;
  /** Opens the keyboard shortcuts panel (the drawer's entry: the floating button is hidden where the drawer is used on touch). */
  onOpenShortcuts: () => void;
  menuOpen: boolean;
  onMenuOpenChange: (open: boolean) => void;
}

const EXTERNAL = { target: '_blank', rel: 'noopener noreferrer' } as const;

/** The bar's items: a little tighter where the bar is narrow. */
const barItemSize = 'lg:max-xl:px-2';

const linkBase =
  'inline-flex items-center gap-2 whitespace-nowrap rounded-lg px-3 py-2 text-sm font-medium transition-colors hover:bg-slate-800 hover:text-white';

/** The fixed top bar; under lg a hamburger opens the side drawer. */
export function Navigation({ onOpenPrivacy, onOpenShortcuts, menuOpen, onMenuOpenChange }: NavigationProps) {
  const [location] = useLocation();
  const { data: site } = useSite();
  const { data: user } = useCurrentUser();
  const close = () => onMenuOpenChange(false);
  const bar = useBarFit(NAV_ITEMS.length);
  const [theme, setTheme] = useThemeChoice();
  const [moreOpen, setMoreOpen] = useState(false);
  const moreButton = useRef<HTMLButtonElement>(null);
  const moreList = useRef<HTMLUListElement>(null);
  const moreItem = useRef<HTMLLIElement>(null);
  const closeMore = (focusButton: boolean) => {
    setMoreOpen(false);
    if (focusButton) moreButton.current?.focus();
  };
  // A route change (a link chosen, a shortcut) closes the menu, and so does a resize that changes it.
  useEffect(() => setMoreOpen(false), [location, bar.shown]);
  // A press outside the button and its menu, or the focus leaving them (Tab past the last link),
  // closes the menu. A layout effect, so the listeners are in place before the next event: with
  // a plain effect a quick press right after opening could arrive first and be missed.
  useLayoutEffect(() => {
    const item = moreItem.current;
    if (!moreOpen || !item) return;
    const outside = (e: Event) => {
      if (!item.contains(e.target as Node)) setMoreOpen(false);
    };
    const focusLeaves = (e: FocusEvent) => {
      const to = e.relatedTarget as Node | null;
      if (to && !item.contains(to)) setMoreOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    item.addEventListener('focusout', focusLeaves);
    return () => {
      document.removeEventListener('pointerdown', outside);
      item.removeEventListener('focusout', focusLeaves);
    };
  }, [moreOpen]);
  const moreLinks = () => Array.from(moreList.current?.querySelectorAll<HTMLElement>('a') ?? []);
  const focusMoreLink = (which: 'first' | 'last' | 1 | -1) => {
    const links = moreLinks();
    if (!links.length) return;
    const at = links.indexOf(document.activeElement as HTMLElement);
    const next = which === 'first' ? 0 : which === 'last' ? links.length - 1 : (at + which + links.length) % links.length;
    links[next].focus();
  };
  const onMoreButtonKey = (e: KeyboardEvent<HTMLElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setMoreOpen(true);
      const which = e.key === 'ArrowDown' ? 'first' : 'last';
      requestAnimationFrame(() => focusMoreLink(which));
    } else if (e.key === 'Escape' && moreOpen) {
      e.preventDefault();
      e.stopPropagation();
      closeMore(true);
    }
  };
  const onMoreListKey = (e: KeyboardEvent<HTMLElement>) => {
    const moves: Record<string, 'first' | 'last' | 1 | -1> = { ArrowDown: 1, ArrowUp: -1, Home: 'first', End: 'last' };
    if (e.key in moves) {
      e.preventDefault();
      focusMoreLink(moves[e.key]);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      closeMore(true);
    }
  };
  // `shown`: how many of the items are in sight; the rest stay in the page, hidden, so the
  // painted first screen keeps its nodes when the bar learns how many fit.
  const navLinks = (items: NavItem[], place: 'bar' | 'menu' | 'drawer', shown = items.length) =>
    items.map((item, index) => {
      const active = isActivePath(item.href, location);
      const Icon = item.icon;
      return (
        <li key={item.href} hidden={index >= shown}>
          <Link
            href={item.href}
            aria-current={active ? 'page' : undefined}
            onClick={place === 'drawer' ? close : place === 'menu' ? () => setMoreOpen(false) : undefined}
            className={cn(
              linkBase,
              place === 'bar' ? barItemSize : 'w-full py-3',
              active ? 'bg-violet-600/20 text-violet-200' : 'text-slate-300',
            )}
          >
            <Icon size={16} aria-hidden="true" />
            {item.label}
          </Link>
        </li>
      );
    });

  // Sign in, or the signed-in user's name leading to their account page.
  const accountHref = user ? '/account' : '/login';
  const accountLink = (vertical: boolean) => (
    <Link
      href={accountHref}
      onClick={vertical ? close : undefined}
      aria-current={isActivePath(accountHref, location) ? 'page' : undefined}
      className={cn(linkBase, 'text-slate-300', vertical && 'w-full py-3', isActivePath(accountHref, location) && 'bg-slate-800')}
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
      <div className="mx-auto flex h-full max-w-[96rem] items-center gap-2 px-4">
        <Link href="/" className="mr-2 flex min-w-0 items-center gap-2 rounded-lg font-bold whitespace-nowrap text-white lg:shrink-0">
          <span aria-hidden="true" className="flex h-8 w-8 shrink-0 items-center justify-center rounded-lg bg-violet-600 text-sm">
            {site ? initialOf(site.shortName) : ''}
          </span>
          {site ? <span className="truncate lg:max-xl:sr-only">{site.shortName}</span> : <Skeleton className="h-5 w-24" />}
        </Link>

        {/* The items the bar has room for; the rest are listed under "More". */}
        <nav aria-label="Main" ref={bar.nav} className="relative hidden min-w-0 flex-1 lg:block" data-fit={bar.measured ? 'true' : undefined}>
          <ul className={cn('flex items-center gap-1 p-1', !bar.measured && 'overflow-hidden')}>
            {navLinks(NAV_ITEMS, 'bar', bar.shown)}
            {bar.shown < NAV_ITEMS.length && (
              <li ref={moreItem} className="relative">
                <button
                  ref={moreButton}
                  type="button"
                  aria-expanded={moreOpen}
                  aria-controls="nav-more"
                  onClick={() => setMoreOpen(!moreOpen)}
                  onKeyDown={onMoreButtonKey}
                  className={cn(
                    linkBase,
                    barItemSize,
                    'cursor-pointer',
                    NAV_ITEMS.slice(bar.shown).some((item) => isActivePath(item.href, location))
                      ? 'bg-violet-600/20 text-violet-200'
                      : 'text-slate-300',
                  )}
                >
                  More
                  <ChevronDown size={16} aria-hidden="true" className={cn('transition-transform', moreOpen && 'rotate-180')} />
                </button>
                <ul
                  ref={moreList}
                  id="nav-more"
                  hidden={!moreOpen}
                  onKeyDown={onMoreListKey}
                  className={cn(moreOpen ? 'flex' : 'hidden', 'absolute top-full left-0 mt-2 w-48 flex-col gap-1 rounded-xl border border-slate-800 bg-slate-950 p-2 shadow-xl')}
                >
                  {navLinks(NAV_ITEMS.slice(bar.shown), 'menu')}
                </ul>
              </li>
            )}
          </ul>
          {/* Every item and the More button at their bar width, out of sight, for measuring what fits. */}
          <div aria-hidden="true" className="pointer-events-none invisible absolute inset-x-0 top-0 h-0 overflow-hidden">
            <ul ref={bar.ruler} className="flex w-max gap-1 p-1">
              {NAV_ITEMS.map((item) => (
                <li key={item.href} className={cn(linkBase, barItemSize, 'shrink-0')}>
                  <item.icon size={16} />
                  {item.label}
                </li>
              ))}
              <li className={cn(linkBase, barItemSize, 'shrink-0')}>
                More
                <ChevronDown size={16} />
              </li>
            </ul>
          </div>
        </nav>

        <div className="ml-auto hidden items-center gap-1 lg:flex">
          {site && (
            <a href={site.madeBy.url} {...EXTERNAL} className="hidden whitespace-nowrap px-2 text-xs text-slate-400 hover:text-slate-200 xl:inline">
              Made by <span className="font-semibold text-slate-200">{site.madeBy.name}</span>
            </a>
          )}
          <button type="button" onClick={onOpenPrivacy} className={cn(linkBase, 'cursor-pointer text-slate-300')}>
            <Shield size={16} aria-hidden="true" />
            {/* Icon only below 2xl: the theme control beside it needs the room at 1280 px, where the
                page links must keep their place in the bar. */}
            <span className="hidden 2xl:inline">Privacy</span>
            <span className="sr-only 2xl:hidden">Privacy</span>
          </button>
          {site && (
            <>
              <a href={site.links.community} {...EXTERNAL} className={cn(linkBase, 'text-slate-300')}>
                <MessageCircle size={16} aria-hidden="true" />
                <span className="hidden 2xl:inline">Community Chat</span>
                <span className="sr-only 2xl:hidden">Community Chat</span>
              </a>
              <a href={site.links.game} {...EXTERNAL} className={cn(linkBase, 'bg-violet-600 text-white hover:bg-violet-700')}>
                <Gamepad2 size={16} aria-hidden="true" />
                <span className="max-lg:sr-only">Play Game</span>
                <ExternalLink size={12} aria-hidden="true" className="max-lg:hidden" />
              </a>
            </>
          )}
          <ThemeCycleButton choice={theme} onChoose={setTheme} className={cn(linkBase, barItemSize, 'cursor-pointer text-slate-300')} />
          {accountLink(false)}
          {adminLink(false)}
        </div>

        <button
          type="button"
          aria-label="Open menu"
          aria-expanded={menuOpen}
          aria-haspopup="dialog"
          onClick={() => onMenuOpenChange(true)}
          className="ml-auto inline-flex h-11 w-11 cursor-pointer items-center justify-center rounded-lg text-slate-200 hover:bg-slate-800 lg:hidden"
        >
          <Menu size={22} aria-hidden="true" />
        </button>
      </div>

      <Dialog open={menuOpen} onClose={close} ariaLabel="Menu" side="left" className="lg:hidden">
        <div className="mb-4 pr-10 font-bold text-white">{site?.shortName}</div>
        <nav aria-label="Main">
          <ul className="flex flex-col gap-1">{navLinks(NAV_ITEMS, 'drawer')}</ul>
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
          <button
            type="button"
            aria-haspopup="dialog"
            onClick={() => {
              close();
              onOpenShortcuts();
            }}
            className={cn(linkBase, 'w-full cursor-pointer py-3 text-slate-300')}
          >
            <Keyboard size={16} aria-hidden="true" />
            Keyboard shortcuts
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
          <ThemeChoices choice={theme} onChoose={setTheme} className="mt-3" />
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

/**
 * How many of `count` nav items the bar shows: measured from the hidden ruler (each item and the
 * More button at their bar width) against the nav's width, again whenever either changes size
 * (the window, the buttons beside the bar once the site settings arrive, the web font). Until the
 * first measurement (the page rendered ahead of the app) every item is in the bar, clipped.
 */
function useBarFit(count: number) {
  const nav = useRef<HTMLElement>(null);
  const ruler = useRef<HTMLUListElement>(null);
  const [fit, setFit] = useState({ shown: count, measured: false });
  useLayoutEffect(() => {
    const navEl = nav.current;
    const rulerEl = ruler.current;
    if (!navEl || !rulerEl) return;
    const measure = () => {
      if (navEl.clientWidth === 0) return; // the bar is hidden (drawer widths)
      const cells = Array.from(rulerEl.children) as HTMLElement[];
      const widths = cells.map((cell) => Math.ceil(cell.getBoundingClientRect().width));
      const moreWidth = widths.pop() ?? 0;
      const style = getComputedStyle(rulerEl);
      const gap = parseFloat(style.columnGap) || 0;
      const padding = (parseFloat(style.paddingLeft) || 0) + (parseFloat(style.paddingRight) || 0);
      const shown = itemsThatFit(widths, navEl.clientWidth - padding, moreWidth, gap);
      setFit((prev) => (prev.measured && prev.shown === shown ? prev : { shown, measured: true }));
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(navEl);
    observer.observe(rulerEl);
    return () => observer.disconnect();
  }, [count]);
  return { nav, ruler, ...fit };
}
