/**
 * A minimal AG-UI front end (docs/ag-ui.md): sends one message to a workspace agent over the AG-UI
 * endpoint with the official `@ag-ui/client`, prints the reply as it streams, and answers the
 * agent's calls of its frontend tool (`get_location`) until the run finishes.
 *
 *   AGUI_BASE_URL=http://127.0.0.1:8080 AGUI_API_KEY=svc_... \
 *     node examples/ag-ui/front-end.ts <workspaceSlug> <agentSlug> "Where am I?"
 */
import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';

const [workspaceSlug, agentSlug, prompt] = process.argv.slice(2);
const baseUrl = process.env.AGUI_BASE_URL ?? 'http://127.0.0.1:8080';
const apiKey = process.env.AGUI_API_KEY;
if (!workspaceSlug || !agentSlug || !prompt || !apiKey) {
  console.error('usage: AGUI_API_KEY=svc_... node front-end.ts <workspaceSlug> <agentSlug> <message>');
  process.exit(2);
}

/** The tools this front end runs itself: the agent calls them, the answers go back in the next input. */
const handlers: Record<string, (args: unknown) => string> = {
  get_location: () => 'Lyon, France',
};
const tools = [
  {
    name: 'get_location',
    description: "The user's current city.",
    parameters: { type: 'object', properties: {} },
  },
];

const agent = new HttpAgent({
  url: `${baseUrl}/api/ag-ui/${workspaceSlug}/agents/${agentSlug}`,
  headers: { authorization: `Bearer ${apiKey}` },
});
agent.messages = [{ id: randomUUID(), role: 'user', content: prompt }];

for (;;) {
  let pending: string[] = [];
  let failure: string | undefined;
  await agent.runAgent(
    { tools },
    {
      onTextMessageContentEvent: ({ event }) => {
        process.stdout.write(event.delta);
      },
      onRunFinishedEvent: (finished) => {
        if (finished.outcome === 'success') pending = finished.pendingToolCallIds ?? [];
      },
      onRunErrorEvent: ({ event }) => {
        failure = event.message;
      },
    },
  );
  if (failure !== undefined) {
    console.error(`\nthe run failed: ${failure}`);
    process.exit(1);
  }
  if (pending.length === 0) break;
  // Run each frontend tool the agent called, and send its answer as a `tool` message.
  for (const toolCallId of pending) {
    const call = agent.messages
      .flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []) : []))
      .find((toolCall) => toolCall.id === toolCallId);
    const handler = call ? handlers[call.function.name] : undefined;
    const args: unknown = call ? JSON.parse(call.function.arguments || '{}') : {};
    agent.messages.push({
      id: randomUUID(),
      role: 'tool',
      toolCallId,
      content: handler ? handler(args) : '',
      ...(handler === undefined && { error: 'unknown tool' }),
    });
    process.stdout.write(`\n[${call?.function.name ?? toolCallId} answered]\n`);
  }
}
process.stdout.write('\n');
