import { describe, expect, it } from 'vitest';
import {
  ANALYTICS_ENDPOINTS,
  CORE_ENDPOINTS,
  apiBaseUrl,
  commandEndpoints,
  curlCommand,
  encodePart,
  exampleCommand,
  exampleGuideCategory,
  formatBytes,
  shellDoubleQuoted,
} from './apiDocs';
import { apiKeyError, keyNameError, keyPrefix } from './apiKeys';

const ORIGIN = 'http://127.0.0.1:8080';
const KEY = 'fhk_0123456789abcdef0123456789abcdef01234567';

describe('curl examples', () => {
  it('prints the base URL from the origin', () => {
    expect(apiBaseUrl(ORIGIN)).toBe('http://127.0.0.1:8080/api/v1');
    expect(apiBaseUrl('https://fans.example.org/')).toBe('https://fans.example.org/api/v1');
  });

  it('prints a keyed call exactly as it runs', () => {
    expect(curlCommand(ORIGIN, '/stats', KEY)).toBe(`curl -s -H "X-API-Key: ${KEY}" "http://127.0.0.1:8080/api/v1/stats"`);
    expect(curlCommand(ORIGIN, '/commands/search?q=fly', KEY)).toBe(
      `curl -s -H "X-API-Key: ${KEY}" "http://127.0.0.1:8080/api/v1/commands/search?q=fly"`,
    );
  });

  it('prints health without a key', () => {
    expect(curlCommand(ORIGIN, '/health', null)).toBe('curl -s "http://127.0.0.1:8080/api/v1/health"');
  });

  it('keeps the shell out of keys and values', () => {
    expect(shellDoubleQuoted('a"b$c`d\\e f&g')).toBe('"a\\"b\\$c\\`d\\\\e f&g"');
    expect(curlCommand(ORIGIN, '/stats', 'k$(rm -rf)"')).toBe(
      'curl -s -H "X-API-Key: k\\$(rm -rf)\\"" "http://127.0.0.1:8080/api/v1/stats"',
    );
    expect(encodePart('Fun & Games')).toBe('Fun%20%26%20Games');
    expect(encodePart("it's (x)!*")).toBe('it%27s%20%28x%29%21%2A');
    expect(encodePart('a/b?c#d')).toBe('a%2Fb%3Fc%23d');
  });
});

describe('endpoint catalogue', () => {
  const all = (data?: Parameters<typeof commandEndpoints>[0]) => [...CORE_ENDPOINTS, ...commandEndpoints(data), ...ANALYTICS_ENDPOINTS];

  it('documents every /api/v1 endpoint the server has, only health without a key', () => {
    const docs = all({ command: { category: 'Fun', permission: 'OA' }, guideCategory: 'Beginner' });
    const paths = new Set(docs.map((d) => d.example.split('?')[0].replace(/\/(category)\/.*$/, '/$1')));
    for (const p of [
      '/health',
      '/database',
      '/stats',
      '/events',
      '/discord-updates',
      '/wiki',
      '/commands',
      '/commands/category',
      '/commands/search',
      '/commands/popular',
      '/guides',
      '/guides/category',
      '/guides/search',
      '/analytics',
      '/commands-stats',
    ]) {
      expect(paths, p).toContain(p);
    }
    expect(docs.filter((d) => !d.needsKey).map((d) => d.id)).toEqual(['health']);
    for (const d of docs) {
      expect(d.example.startsWith('/'), d.id).toBe(true);
      expect(d.description.length, d.id).toBeGreaterThan(10);
      expect(d.response.length, d.id).toBeGreaterThan(5);
    }
  });

  it('gives each example on a tab its own id', () => {
    for (const list of [CORE_ENDPOINTS, commandEndpoints({ command: { category: 'Fun', permission: 'OA' }, guideCategory: 'Beginner' }), ANALYTICS_ENDPOINTS]) {
      const ids = list.map((d) => d.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('uses real categories for the category examples and leaves them out while none is known', () => {
    const withData = commandEndpoints({ command: { category: 'Fun & Games', permission: 'UP' }, guideCategory: 'Building' });
    const byId = Object.fromEntries(withData.map((d) => [d.id, d.example]));
    expect(byId['commands-category']).toBe('/commands/category/Fun%20%26%20Games');
    expect(byId['commands-filtered']).toBe('/commands?page=1&limit=10&category=Fun%20%26%20Games&permission=UP');
    expect(byId['guides-category']).toBe('/guides/category/Building');
    expect(byId['commands-search']).toBe('/commands/search?q=fly');
    expect(byId['commands']).toBe('/commands?page=1&limit=5');

    const ids = commandEndpoints().map((d) => d.id);
    expect(ids).not.toContain('commands-category');
    expect(ids).not.toContain('commands-filtered');
    expect(ids).not.toContain('guides-category');
    expect(ids).toContain('commands-popular');
  });

  it('analytics asks for 7 days', () => {
    expect(ANALYTICS_ENDPOINTS.map((d) => d.example)).toEqual(['/analytics?days=7', '/commands-stats', '/events?since=0&limit=20']);
  });

  it('picks the example category from the data', () => {
    expect(exampleCommand([{ category: '', permission: 'OA' }, { category: 'Moderation', permission: 'OR' }])).toEqual({
      category: 'Moderation',
      permission: 'OR',
    });
    expect(exampleCommand([])).toBeNull();
    expect(exampleCommand(undefined)).toBeNull();
    expect(exampleGuideCategory([{ category: 'Beginner' }])).toBe('Beginner');
    expect(exampleGuideCategory(undefined)).toBeNull();
  });
});

describe('validation and display helpers', () => {
  it("needs a key name after trimming: 'Please enter a key name'", () => {
    expect(keyNameError('')).toBe('Please enter a key name');
    expect(keyNameError('   \t')).toBe('Please enter a key name');
    expect(keyNameError(' bot ')).toBeNull();
  });

  it("needs an API key for the database check: 'Please enter an API key'", () => {
    expect(apiKeyError('')).toBe('Please enter an API key');
    expect(apiKeyError('  ')).toBe('Please enter an API key');
    expect(apiKeyError(KEY)).toBeNull();
  });

  it('shows 12 characters of a key', () => {
    expect(keyPrefix(KEY)).toBe('fhk_01234567');
    expect(keyPrefix(KEY)).toHaveLength(12);
  });

  it('formats a database size', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KB');
    expect(formatBytes(5 * 1024 * 1024 + 512 * 1024)).toBe('5.5 MB');
    expect(formatBytes(-1)).toBe('-');
  });
});
