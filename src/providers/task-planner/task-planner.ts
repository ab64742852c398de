import type { ModelPort, TaskPlanner } from '../../engine/ports.ts';
import { PLANNING_REQUEST } from './planner-prompt.ts';
import { parsePlan } from './planner-reply.ts';

const ignoreDeltas = { onText: () => {}, onThinking: () => {} };

/**
 * The one-shot planner of plan-only runs: one plain model call on the run's own model, through the
 * loop's model port, with the run's system prompt and input and the planning request after them;
 * no tools, no reasoning, no retry (as the supervisor's judge). Its reply is read as the plan.
 */
export function taskPlanner(models: ModelPort): TaskPlanner {
  return {
    plan: async ({ model, instructions, input }, signal) => {
      const completed = await models.call(
        {
          model,
          instructions,
          messages: [...input, { role: 'user', content: PLANNING_REQUEST }],
          reasoningLevel: null,
        },
        signal,
        ignoreDeltas,
      );
      return { plan: parsePlan(completed.text), usage: completed.usage };
    },
  };
}
