import type { ReasoningEffortLabel, ReasoningLevelInput } from './usage.ts';

const LEVEL_BY_LABEL: Readonly<Record<ReasoningEffortLabel, number>> = {
  off: 0,
  low: 30,
  medium: 50,
  high: 80,
};

/** `'off'|'low'|'medium'|'high'` → 0/30/50/80; numbers are rounded and clamped to 0-100. */
export function normalizeReasoningLevel(input: ReasoningLevelInput): number {
  if (typeof input === 'string') return LEVEL_BY_LABEL[input];
  if (!Number.isFinite(input)) return 0;
  return Math.min(100, Math.max(0, Math.round(input)));
}

/** 0 off, 1-35 low, 36-65 medium, 66-100 high. */
export function reasoningEffortLabel(level: number): ReasoningEffortLabel {
  if (level <= 0) return 'off';
  if (level <= 35) return 'low';
  if (level <= 65) return 'medium';
  return 'high';
}
