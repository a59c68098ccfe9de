import { describe, expect, it } from 'vitest';
import { backupDownloadUrl } from './admin';
import { formatBytes } from './format';

describe('formatBytes', () => {
  it('uses binary multiples with one decimal below ten', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(104_857_600)).toBe('100 MB');
    expect(formatBytes(3 * 1024 ** 4 * 1024)).toBe('3072 TB');
  });
  it('shows a dash for what is not a size', () => {
    expect(formatBytes(-1)).toBe('—');
    expect(formatBytes(Number.NaN)).toBe('—');
  });
});

describe('backupDownloadUrl', () => {
  it('keeps the name one path segment', () => {
    expect(backupDownloadUrl('fanhub-20261123-020000.tar')).toBe('/api/admin/backups/fanhub-20261123-020000.tar');
    expect(backupDownloadUrl('../x/y')).toBe('/api/admin/backups/..%2Fx%2Fy');
  });
});
