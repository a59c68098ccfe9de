import type { LucideIcon } from 'lucide-react';
import type { ComponentChildren } from 'preact';
import { ExternalLink } from 'lucide-react';
import { ApiError } from '../../lib/api';
import type { BannerColors } from '../../lib/admin/settings';
import { toast } from '../../lib/toast';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { Dialog } from '../ui/Dialog';
import { Skeleton } from '../ui/Skeleton';
import { cn } from '../ui/cn';

/** A loading admin table shows exactly 5 skeleton rows. */
export const SKELETON_ROWS = 5;

/** Five placeholder rows for a loading table (inside <tbody>). */
export function SkeletonTableRows({ columns }: { columns: number }) {
  return (
    <>
      {Array.from({ length: SKELETON_ROWS }, (_, i) => (
        <tr key={i} data-testid="skeleton-row" aria-hidden="true">
          {Array.from({ length: columns }, (_, c) => (
            <td key={c} className="px-3 py-3">
              <Skeleton className="h-4 w-full" />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

/** Five placeholder rows for a loading list (not a table). */
export function SkeletonList() {
  return (
    <div role="status" aria-label="Loading" className="flex flex-col gap-3">
      {Array.from({ length: SKELETON_ROWS }, (_, i) => (
        <div key={i} data-testid="skeleton-row" className="rounded-lg border border-slate-800 p-4">
          <Skeleton className="h-4 w-1/3" />
          <Skeleton className="mt-2 h-3 w-2/3" />
        </div>
      ))}
    </div>
  );
}

/** A failure toast: the fixed title, the server's error sentence (if any) as the description. */
export function failToast(title: string, err: unknown) {
  const detail = err instanceof ApiError ? err.serverError ?? err.serverMessage : undefined;
  toast({ title, description: detail, variant: 'destructive' });
}

export function SectionCard({
  icon: Icon,
  title,
  description,
  actions,
  children,
  className,
}: {
  /** Shown before the title. */
  icon?: LucideIcon;
  title: ComponentChildren;
  description?: ComponentChildren;
  actions?: ComponentChildren;
  children?: ComponentChildren;
  className?: string;
}) {
  return (
    <Card className={cn('min-w-0 p-4 sm:p-5', className)}>
      <div className="mb-4 flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 className="text-lg font-semibold text-white">
            {Icon ? (
              <span className="inline-flex items-center gap-2">
                <Icon size={18} aria-hidden="true" /> {title}
              </span>
            ) : (
              title
            )}
          </h2>
          {description && <p className="mt-0.5 text-sm text-slate-400">{description}</p>}
        </div>
        {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
      </div>
      {children}
    </Card>
  );
}

export function StatCard({
  label,
  value,
  sub,
  icon,
  testId,
  children,
}: {
  label: string;
  value: ComponentChildren;
  sub?: ComponentChildren;
  icon?: ComponentChildren;
  testId?: string;
  children?: ComponentChildren;
}) {
  return (
    <Card className="min-w-0 p-4" data-testid={testId}>
      <div className="flex items-center justify-between gap-2 text-sm text-slate-400">
        <span>{label}</span>
        {icon && <span className="text-violet-300">{icon}</span>}
      </div>
      <div className="mt-2 break-words text-2xl font-bold text-white">{value}</div>
      {sub && <div className="mt-1 text-xs text-slate-400">{sub}</div>}
      {children}
    </Card>
  );
}

/** A yes/no confirmation dialog. */
export function ConfirmDialog({
  open,
  title,
  description,
  confirmLabel,
  cancelLabel = 'Cancel',
  destructive,
  pending,
  onConfirm,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  description?: ComponentChildren;
  confirmLabel: string;
  cancelLabel?: string;
  destructive?: boolean;
  pending?: boolean;
  onConfirm: () => void;
  onClose: () => void;
  children?: ComponentChildren;
}) {
  return (
    <Dialog open={open} onClose={onClose} title={title} description={description}>
      {children}
      <div className="mt-5 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose} data-autofocus>
          {cancelLabel}
        </Button>
        <Button variant={destructive ? 'destructive' : 'default'} disabled={pending} onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </div>
    </Dialog>
  );
}

/** A preview of the default clan banner in the given colours. */
export function BannerPreview({
  colors,
  clanName,
  message,
  inviteUrl,
}: {
  colors: BannerColors;
  clanName: string;
  message: string;
  inviteUrl?: string;
}) {
  return (
    <div
      data-testid="banner-preview"
      className="flex flex-wrap items-center justify-between gap-3 rounded-lg border-2 px-4 py-3"
      style={{ backgroundColor: colors.backgroundColor, color: colors.textColor, borderColor: colors.borderColor }}
    >
      <div className="min-w-0">
        <div className="text-xs font-bold uppercase tracking-widest opacity-90">{clanName}</div>
        <div className="text-sm">{message}</div>
      </div>
      {inviteUrl && (
        <span
          className="inline-flex items-center gap-1 rounded-lg border px-3 py-1 text-sm font-semibold"
          style={{ borderColor: colors.textColor }}
        >
          Join <ExternalLink size={14} aria-hidden="true" />
        </span>
      )}
    </div>
  );
}

/** A horizontally scrolling table wrapper (phones). */
export function TableScroll({ children, label }: { children: ComponentChildren; label: string }) {
  return (
    <div className="-mx-4 overflow-x-auto px-4 sm:mx-0 sm:px-0" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

export const TH = 'whitespace-nowrap px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-400';
export const TD = 'px-3 py-3 align-middle text-sm';

/** Under a list paged by key: how many rows are shown (of how many, when known) and "Load more" while the server has more. */
export function LoadMore({
  label,
  shown,
  total,
  hasMore,
  loading,
  onMore,
}: {
  label: string;
  shown: number;
  total?: number;
  hasMore: boolean;
  loading: boolean;
  onMore: () => void;
}) {
  return (
    <div className="mt-4 flex flex-wrap items-center justify-between gap-2" data-testid="load-more-bar">
      <span className="text-sm text-slate-400" aria-live="polite" data-testid="shown-count">
        Showing {shown.toLocaleString()}
        {total !== undefined ? ` of ${total.toLocaleString()}` : ''} {label}
      </span>
      {hasMore && (
        <Button size="sm" variant="outline" disabled={loading} onClick={onMore}>
          {loading ? 'Loading...' : 'Load more'}
        </Button>
      )}
    </div>
  );
}
