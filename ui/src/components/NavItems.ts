import { Award, BookOpen, Bot, House, Newspaper, Terminal, UserSearch, Users, type LucideIcon } from 'lucide-react';

export interface NavItem {
  href: string;
  label: string;
  icon: LucideIcon;
}

/** The top navigation, in order. Later routes are added here. */
export const NAV_ITEMS: NavItem[] = [
  { href: '/', label: 'Home', icon: House },
  { href: '/commands', label: 'Commands', icon: Terminal },
  { href: '/guides', label: 'Guides', icon: BookOpen },
  { href: '/community', label: 'Community', icon: Users },
  { href: '/badge-monitor', label: 'Badges', icon: Award },
  { href: '/newgen-detector', label: 'Newgen', icon: UserSearch },
  { href: '/discord-bot-api', label: 'Bot API', icon: Bot },
  { href: '/discord-news', label: 'Updates', icon: Newspaper },
];

/** Whether a nav item matches the current location ("/" only matches itself). */
export function isActivePath(href: string, location: string): boolean {
  if (href === '/') return location === '/';
  return location === href || location.startsWith(href + '/');
}

/**
 * How many of the bar's items, in order, fit in `available` pixels when each takes its width in
 * `widths` and `gap` separates neighbours: all of them if they fit side by side, else as many as
 * fit beside the "More" button (`moreWidth`) that lists the rest.
 */
export function itemsThatFit(widths: number[], available: number, moreWidth: number, gap: number): number {
  const total = (n: number) => widths.slice(0, n).reduce((sum, w) => sum + w, 0) + gap * Math.max(0, n - 1);
  if (total(widths.length) <= available) return widths.length;
  let n = widths.length - 1;
  while (n > 0 && total(n) + gap + moreWidth > available) n--;
  return n;
}
