import { aiSdkModelPort } from '../../../src/providers/ai-sdk-model-turn.ts';
import { leanChatModelPort } from '../../../src/providers/openai-chat/lean-chat-turn.ts';
import type { NamedPort } from './port-capture.ts';

/**
 * The two model ports the OpenAI chat differential suites compare: the one place to switch them.
 * Port A is the reference (the AI SDK path); port B the port under comparison. To check the suites
 * themselves, set port B to `{ name: 'aiSdkModelPort (as B)', port: aiSdkModelPort }` (everything
 * must pass) or to a port of faulty-ports.ts, e.g. `droppingLastDelta(aiSdkModelPort)` (the cases
 * it changes must fail).
 */
export const PORT_A: NamedPort = { name: 'aiSdkModelPort', port: aiSdkModelPort };

export const PORT_B: NamedPort = { name: 'leanChatModelPort', port: leanChatModelPort };
