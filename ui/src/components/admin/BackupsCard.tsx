import { Archive, Download } from 'lucide-react';
import { backupDownloadUrl, useBackupNow, useBackups } from '../../lib/admin/backups';
import { formatBytes, formatDateTime } from '../../lib/format';
import { toast } from '../../lib/toast';
import { Button, buttonClass } from '../ui/Button';
import { cn } from '../ui/cn';
import { SectionCard, SkeletonTableRows, TD, TH, TableScroll, failToast } from './shared';

/** The archives in DATA_DIR/backups/ (database and uploads), the schedule, and Backup Now. */
export function BackupsCard() {
  const { data, isLoading, isError } = useBackups();
  const backupNow = useBackupNow();
  const backups = data?.backups ?? [];
  const schedule = data
    ? data.every
      ? `Every ${data.every}, keeping the newest ${data.keep}.`
      : `Scheduled backups are off (start with --backup-every 24h). Backup Now keeps the newest ${data.keep}.`
    : undefined;
  return (
    <SectionCard
      icon={Archive}
      title="Backups"
      description="Archives of the database and uploads in the data dir's backups/ folder. Restore one with fanhub restore FILE."
    >
      <div className="mb-3 flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <div className="text-sm text-slate-300">
          {schedule && <p data-testid="backup-schedule">{schedule}</p>}
          {data?.lastError && <p className="text-red-400">Last failure: {data.lastError}</p>}
        </div>
        <Button
          variant="outline"
          className="w-full sm:w-auto"
          disabled={backupNow.isPending}
          onClick={() =>
            backupNow.mutate(undefined, {
              onSuccess: (b) => toast({ title: 'Backup Written', description: `${b.name} (${formatBytes(b.sizeBytes)})` }),
              onError: (err) => failToast('Backup failed', err),
            })
          }
        >
          <Archive size={16} aria-hidden="true" /> {backupNow.isPending ? 'Backing up...' : 'Backup Now'}
        </Button>
      </div>
      {isError ? (
        <p className="text-sm text-red-400">Failed to load the backups.</p>
      ) : !isLoading && backups.length === 0 ? (
        <p className="py-6 text-center text-slate-400">No backups yet</p>
      ) : (
        <TableScroll label="Backups">
          <table className="w-full min-w-[560px] border-collapse">
            <thead className="border-b border-slate-800">
              <tr>
                <th scope="col" className={TH}>Taken</th>
                <th scope="col" className={TH}>File</th>
                <th scope="col" className={TH}>Size</th>
                <th scope="col" className={TH}>Download</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-800">
              {isLoading ? (
                <SkeletonTableRows columns={4} />
              ) : (
                backups.map((b) => (
                  <tr key={b.name} data-testid="backup-row">
                    <td className={cn(TD, 'whitespace-nowrap text-slate-300')}>{formatDateTime(b.createdAt)}</td>
                    <td className={cn(TD, 'whitespace-nowrap font-mono text-xs')}>{b.name}</td>
                    <td className={cn(TD, 'whitespace-nowrap text-slate-300')}>{formatBytes(b.sizeBytes)}</td>
                    <td className={TD}>
                      <a
                        href={backupDownloadUrl(b.name)}
                        download={b.name}
                        className={buttonClass('outline', 'sm')}
                        aria-label={`Download ${b.name}`}
                      >
                        <Download size={14} aria-hidden="true" /> Download
                      </a>
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </TableScroll>
      )}
    </SectionCard>
  );
}
