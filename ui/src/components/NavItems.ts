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
