import type { SupervisorSetting } from '../../../domain/run-controls.ts';

/** When a mid-turn review happens: the reasoning span past `chars` characters or `ms` milliseconds. */
export interface ReasoningTrigger {
  chars: number;
  ms: number;
}

/** A `supervisor` setting that asks for a judge, in the one shape the control reads. */
export interface SupervisorConfig {
  /** Model invocations between turn-boundary reviews. */
  interval: number;
  /** The judge model as the spec gave it (undefined: the workspace default). */
  modelId: string | undefined;
  /** null: reviews only at turn boundaries. */
  reasoningTrigger: ReasoningTrigger | null;
}

export const SUPERVISOR_INTERVAL_DEFAULT = 5;
export const REASONING_TRIGGER_DEFAULTS: ReasoningTrigger = { chars: 3000, ms: 30_000 };

/**
 * Reads the spec's `supervisor` forms: omitted and `false` ask for no judge; `true` for the defaults;
 * an object tunes them (ranges are checked at the edge). The reasoning trigger is on by default.
 */
export function supervisorConfigOf(setting: SupervisorSetting | undefined): SupervisorConfig | undefined {
  if (setting === undefined || setting === false) return undefined;
  const options = setting === true ? {} : setting;
  const trigger = options.reasoningTrigger;
  return {
    interval: options.interval ?? SUPERVISOR_INTERVAL_DEFAULT,
    modelId: options.modelId,
    reasoningTrigger:
      trigger === false
        ? null
        : {
            chars: trigger?.chars ?? REASONING_TRIGGER_DEFAULTS.chars,
            ms: trigger?.ms ?? REASONING_TRIGGER_DEFAULTS.ms,
          },
  };
}
