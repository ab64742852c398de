import type { ModelPort } from '../engine/ports.ts';
import { aiSdkModelPort } from './ai-sdk-model-turn.ts';
import { leanChatModelPort } from './openai-chat/lean-chat-turn.ts';

/**
 * Model calls on the calling thread: OpenAI-compatible servers (`openai-chat`, the protocol of
 * self-hosted and high-volume deployments) on the lean path, every other protocol through the AI SDK.
 */
export const inThreadModelPort: ModelPort = {
  call: (call, signal, output) =>
    (call.model.api === 'openai-chat' ? leanChatModelPort : aiSdkModelPort).call(call, signal, output),
  close: async () => {},
};
