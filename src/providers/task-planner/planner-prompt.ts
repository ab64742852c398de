/**
 * The planner's request, after the run's input: the model plans the task instead of doing it, and
 * may say that it needs no multi-step plan.
 */
export const PLANNING_REQUEST = [
  '[task plan] Do not carry out the task above yet: plan it. Reply with only a JSON object, no other text:',
  '{"brief": "<the objective, in one line>", "steps": ["<first step>", "<second step>", ...]}',
  'Each step is a short imperative line, in the order you would take them. If the task is simple',
  'enough to answer directly, give "steps": [] and the brief only.',
].join('\n');
