import type { WorkspaceRateLimits } from './workspace.ts';

export type RateLimitBucket = 'run_start' | 'lifecycle' | 'other_mutations' | 'transport';

export const RATE_LIMIT_WINDOW_SECONDS = 60;

/** Per-minute defaults of the spec; `transport` (reads, status checks, SSE opens) has its own high limit. */
export const DEFAULT_RATE_LIMITS: Readonly<Record<RateLimitBucket, number>> = {
  run_start: 120,
  lifecycle: 600,
  other_mutations: 120,
  transport: 6000,
};

/**
 * The bucket's maximum for a workspace: operators may override the three metered maxima per workspace,
 * and the transport limit too (a client streaming many runs through one key opens many streams).
 */
export function rateLimitFor(bucket: RateLimitBucket, overrides: WorkspaceRateLimits): number {
  switch (bucket) {
    case 'run_start':
      return overrides.runStart ?? DEFAULT_RATE_LIMITS.run_start;
    case 'lifecycle':
      return overrides.lifecycle ?? DEFAULT_RATE_LIMITS.lifecycle;
    case 'other_mutations':
      return overrides.otherMutations ?? DEFAULT_RATE_LIMITS.other_mutations;
    case 'transport':
      return overrides.transport ?? DEFAULT_RATE_LIMITS.transport;
  }
}
