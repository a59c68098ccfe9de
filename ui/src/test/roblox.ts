// Test-only fixtures: answers shaped as the server sends them.
import type { BadgeMonitorResponse, BotAnalysis, BotQuickCheck, MonitoredBadge, NewgenCheck } from '../lib/roblox';

export function monitoredBadge(over: Partial<MonitoredBadge> = {}): MonitoredBadge {
  return {
    badgeId: 101,
    name: 'Welcome',
    description: 'Join a server for the first time',
    imageUrl: 'https://img.example/101.png',
    imageFallbacks: ['https://alt1.example/101.png', 'https://alt2.example/101.png'],
    rarity: 'easy',
    difficulty: 'Freebie',
    winRatePercentage: 92.5,
    awardedCount: 1_234_567,
    dailyStats: { today: 1500, weekAverage: 1320.4 },
    // no snapshot on the 19th
    history: [
      { date: '2026-11-17', awardedCount: 1_227_000, pastDay: 1200 },
      { date: '2026-11-18', awardedCount: 1_228_300, pastDay: 1300 },
      { date: '2026-11-20', awardedCount: 1_230_900, pastDay: 1250 },
      { date: '2026-11-21', awardedCount: 1_232_300, pastDay: 1400 },
      { date: '2026-11-22', awardedCount: 1_233_650, pastDay: 1350 },
      { date: '2026-11-23', awardedCount: 1_234_567, pastDay: 1500 },
    ],
    updatedAt: '2026-11-23T10:05:09Z',
    ...over,
  };
}

export function monitorResponse(over: Partial<BadgeMonitorResponse> = {}): BadgeMonitorResponse {
  const badges = [
    monitoredBadge(),
    monitoredBadge({ badgeId: 202, name: 'Elected', description: 'Win an election', rarity: 'insane', difficulty: 'Insane', awardedCount: 999, dailyStats: { today: 3, weekAverage: 2 } }),
  ];
  return {
    success: true,
    badges,
    totalTracked: 2,
    globalStats: { totalAwarded: 1_235_566, mostPopular: 'Welcome', mostPopularBadgeId: 101, rarest: 'Elected', rarestBadgeId: 202 },
    lastUpdated: '2026-11-23T10:05:09Z',
    stale: false,
    error: null,
    pollIntervalSecs: 300,
    ...over,
  };
}

export function newgenCheck(over: Partial<NewgenCheck> = {}): NewgenCheck {
  return {
    success: true,
    username: 'OldBuilder',
    displayName: 'The Old Builder',
    userId: 1234,
    avatarUrl: 'https://img.example/avatar.png',
    hasVerifiedBadge: true,
    joinDate: '2009-05-01T12:00:00Z',
    accountAge: 6415,
    generation: 'VETERAN',
    generationLabel: 'OG',
    isNewgen: false,
    isVeteran: true,
    classification: 'Veteran',
    reason: 'Joined before 2012 and owns 2 of 3 ELC badges',
    confidence: 95,
    evidence: [
      { kind: 'joinDate', detail: 'Joined on 2009-05-01', date: '2009-05-01T12:00:00Z' },
      { kind: 'elcBadge', detail: 'Owns Early Builder', date: '2010-01-02T00:00:00Z', badgeId: 11 },
    ],
    elcBadges: {
      count: 2,
      total: 3,
      badges: [
        { name: 'Early Builder', badgeId: 11, description: 'Built early', awardedDate: '2010-01-02T00:00:00Z' },
        { name: 'First Election', badgeId: 12, description: 'Voted in the first election', awardedDate: '2010-03-04T00:00:00Z' },
      ],
      available: true,
      unavailableReason: null,
      unavailableCode: null,
    },
    isBanned: false,
    robloxSources: { profile: 'anonymous', awardDates: 'anonymous' },
    apiKey: { name: 'Public key', requests: 42 },
    checkedAt: '2026-11-23T10:00:00Z',
    ...over,
  };
}

export function botAnalysis(elc = 7, over: Partial<BotAnalysis> = {}): BotAnalysis {
  return {
    success: true,
    username: 'OldBuilder',
    displayName: 'OldBuilder',
    userId: 1234,
    avatarUrl: 'https://img.example/avatar.png',
    hasVerifiedBadge: false,
    accountAge: 6415,
    joinDate: '2009-05-01T12:00:00Z',
    description: 'I build things',
    isBanned: false,
    status: {
      classification: 'Veteran',
      generation: 'VETERAN',
      generationLabel: 'OG',
      confidence: 95,
      reason: 'Joined in 2009',
      isNewgen: false,
      isVeteran: true,
      evidence: [],
    },
    badges: {
      elcCount: elc,
      total: 9,
      elcBadges: Array.from({ length: elc }, (_, i) => ({
        name: `ELC ${i + 1}`,
        badgeId: 100 + i,
        description: `Badge number ${i + 1}`,
        awardedDate: '2010-01-02T00:00:00Z',
      })),
      available: true,
      unavailableReason: null,
    },
    robloxSources: { profile: 'anonymous', awardDates: 'anonymous' },
    checkedAt: '2026-11-23T10:00:00Z',
    ...over,
  };
}

export function botQuickCheck(over: Partial<BotQuickCheck> = {}): BotQuickCheck {
  return {
    success: true,
    username: 'OldBuilder',
    displayName: 'OldBuilder',
    userId: 1234,
    avatarUrl: 'https://img.example/avatar.png',
    status: 'Veteran',
    generation: 'VETERAN',
    generationLabel: 'OG',
    confidence: 95,
    elcAvailable: true,
    elcBadgeCount: 7,
    totalBadgeCount: 120,
    accountAge: 6415,
    earliestBadge: { name: 'Early Builder', awardedDate: '2010-01-02T00:00:00Z' },
    robloxSources: { profile: 'anonymous', awardDates: 'anonymous' },
    checkedAt: '2026-11-23T10:00:00Z',
    ...over,
  };
}
