import { Badge, type BadgeVariant } from '../ui/Badge';
import type { Permission } from '../../lib/types';

const VARIANT: Record<Permission, BadgeVariant> = {
  OA: 'default',
  OR: 'destructive',
  UP: 'warning',
  NE: 'success',
};

/** The two-letter permission level; its meaning is the tooltip when known. */
export function PermissionBadge({ permission, meaning }: { permission: Permission; meaning?: string }) {
  return (
    <Badge variant={VARIANT[permission] ?? 'secondary'} title={meaning} className="font-mono" data-testid="permission-badge">
      {permission}
    </Badge>
  );
}
