// Test-only data in the server's shapes (lib/types, generated from its OpenAPI document).
import type { AiAnalysis } from '../lib/types';

/** The server's reading of an ad whose words point nowhere, with `over` on top. */
export function adAnalysis(over: Partial<AiAnalysis> = {}): AiAnalysis {
  return {
    summary: '',
    mainProduct: '',
    category: 'Unsure',
    priceRange: 'Not stated',
    keyFeatures: [],
    callToAction: 'Visit site',
    source: 'heuristic',
    certainty: 'unsure',
    confidence: 0,
    guess: null,
    evidence: [],
    ...over,
  };
}
