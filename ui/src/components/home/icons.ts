// The small, explicit set of lucide icons that site.toml may name for features and factions.
// Names are matched loosely: "Hammer", "hammer", "building-2" and "Building2" all work.
// An unknown name falls back to Sparkles. Add an icon here (imported individually) to allow it.
import type { ComponentType } from 'preact';
import {
  Building2,
  Crown,
  Globe,
  Hammer,
  Server,
  Shield,
  Sparkles,
  Terminal,
  Users,
  Vote,
  Wrench,
  Zap,
} from 'lucide-react';

export type IconComponent = ComponentType<{ className?: string; 'aria-hidden'?: boolean | 'true' | 'false' }>;

const ICONS: Record<string, IconComponent> = {
  building: Building2 as IconComponent,
  building2: Building2 as IconComponent,
  crown: Crown as IconComponent,
  globe: Globe as IconComponent,
  hammer: Hammer as IconComponent,
  server: Server as IconComponent,
  shield: Shield as IconComponent,
  sparkles: Sparkles as IconComponent,
  terminal: Terminal as IconComponent,
  users: Users as IconComponent,
  vote: Vote as IconComponent,
  wrench: Wrench as IconComponent,
  zap: Zap as IconComponent,
};

export function normalizeIconName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The lucide component for a site.toml icon name (Sparkles when unknown). */
export function iconFor(name: string | undefined | null): IconComponent {
  return (name && ICONS[normalizeIconName(name)]) || (Sparkles as IconComponent);
}
