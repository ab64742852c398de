import type { ResolvedModel } from '../../domain/model.ts';
import type { ModelPort, ModelResolver, RunJudge, RunJudges } from '../../engine/ports.ts';
import { JUDGE_INSTRUCTIONS, judgePrompt } from './judge-prompt.ts';
import { parseVerdict } from './judge-verdict.ts';

export interface SupervisorJudgeDeps {
  /** The port the turn loop calls models through (model threads included). */
  models: ModelPort;
  resolver: ModelResolver;
}

const ignoreDeltas = { onText: () => {}, onThinking: () => {} };

/**
 * Judges on catalog models: the judge's model is resolved like a run's `modelId` (omitted: the
 * workspace default model), and each review is one plain model call through the loop's model port,
 * without tools or reasoning, whose reply is read as a verdict.
 */
export function supervisorJudges(deps: SupervisorJudgeDeps): RunJudges {
  return {
    judgeFor: async (workspaceId, modelId) =>
      modelJudge(deps.models, await deps.resolver.resolve(workspaceId, modelId)),
  };
}

function modelJudge(models: ModelPort, model: ResolvedModel): RunJudge {
  return {
    model: { id: model.id, provider: model.provider, vendorModelId: model.vendorModelId },
    review: async (request, signal) => {
      const completed = await models.call(
        {
          model,
          instructions: JUDGE_INSTRUCTIONS,
          messages: [{ role: 'user', content: judgePrompt(request) }],
          reasoningLevel: null,
        },
        signal,
        ignoreDeltas,
      );
      return { verdict: parseVerdict(completed.text), usage: completed.usage, llmCalls: 1 };
    },
  };
}
