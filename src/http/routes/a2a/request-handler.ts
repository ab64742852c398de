import type { Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import { DefaultRequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import { hostedCallOf } from './hosted-call.ts';

/**
 * The SDK's request handler, telling our executor whether a message is sent or streamed, and
 * answering with the call's failure (a message refused before its run, a run that failed or was
 * cancelled) as a JSON-RPC error rather than a result. A streamed message that fails before its run
 * starts fails before the stream opens; once its task is out, the task's final status tells.
 */
export class HostedAgentRequestHandler extends DefaultRequestHandler {
  override async sendMessage(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Message | Task> {
    const call = hostedCallOf(context);
    call.mode = 'send';
    let result: Message | Task;
    try {
      result = await super.sendMessage(params, context);
    } catch (error) {
      throw call.failure ?? error;
    }
    if (call.failure) throw call.failure;
    return result;
  }

  override async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const call = hostedCallOf(context);
    call.mode = 'stream';
    yield* super.sendMessageStream(params, context);
    if (call.failure) throw call.failure;
  }
}
