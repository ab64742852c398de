/**
 * A command-line chat with an agent of the agent-runs service: one session, one local tool
 * (`get_time`, answered by this process) and one `mcp_local` bridge (the notepad MCP server in
 * `notes-mcp-server.ts`, started over stdio). Each line typed is a message; the reply streams as
 * it is written.
 *
 *   AGENT_RUNS_URL        the service (default http://127.0.0.1:8080)
 *   AGENT_RUNS_WORKSPACE  the workspace slug (default `default`)
 *   AGENT_RUNS_API_KEY    a Developer-API key of that workspace (required)
 *   AGENT_RUNS_MODEL      a modelId (default: the workspace's default model)
 *
 *   node --conditions=@agent-runs/source packages/client/examples/chat-cli.ts
 */
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AgentRunsClient, LocalToolDispatcher, McpLocalBridge, type RunEvent } from '@agent-runs/client';

const SYSTEM_PROMPT =
  'You are a helpful assistant in a terminal. Use get_time for the current time and the notes tools to keep notes.';

const apiKey = process.env.AGENT_RUNS_API_KEY;
if (!apiKey) {
  console.error('Set AGENT_RUNS_API_KEY (npm start prints one on a fresh database).');
  process.exit(2);
}
const client = new AgentRunsClient({
  baseUrl: process.env.AGENT_RUNS_URL ?? 'http://127.0.0.1:8080',
  workspace: process.env.AGENT_RUNS_WORKSPACE ?? 'default',
  credential: apiKey,
});
const modelId = process.env.AGENT_RUNS_MODEL;

const tools = new LocalToolDispatcher();
tools.local(
  'get_time',
  ({ timeZone }) => {
    const zone = typeof timeZone === 'string' && timeZone !== '' ? timeZone : 'UTC';
    const time = new Date().toLocaleString('en-GB', { timeZone: zone, dateStyle: 'full', timeStyle: 'long' });
    return `${time} (${zone})`;
  },
  {
    description: 'The current date and time.',
    parameters: {
      type: 'object',
      properties: { timeZone: { type: 'string', description: 'An IANA time zone such as Europe/Paris.' } },
    },
    readOnly: true,
  },
);
const notes = await McpLocalBridge.stdio({
  name: 'notes',
  command: process.execPath,
  args: [fileURLToPath(new URL('./notes-mcp-server.ts', import.meta.url))],
});
tools.bridge(notes);

const { sessionId } = await client.sessions.create({
  name: 'chat-cli',
  systemPrompt: SYSTEM_PROMPT,
  ...(modelId && { modelId }),
  tools: tools.toolRefs(),
});
console.log(`Session ${sessionId}. Type a message (empty line or Ctrl-D to quit).`);

const stop = new AbortController();
let closing = false;
async function shutDown(code: number): Promise<never> {
  if (!closing) {
    closing = true;
    stop.abort(new Error('the chat was closed'));
    await tools.close(); // stops the MCP server process
  }
  process.exit(code);
}
process.once('SIGINT', () => void shutDown(130));
process.once('SIGTERM', () => void shutDown(143));

function show(event: RunEvent): void {
  switch (event.type) {
    case 'assistant_delta':
      process.stdout.write(event.data.text);
      break;
    case 'local_tool_call':
      process.stdout.write(`[${event.data.name} ${JSON.stringify(event.data.args)}]\n`);
      break;
    case 'local_tool_result_in':
      process.stdout.write(`[${event.data.isError ? 'tool error' : 'tool result'}: ${event.data.output}]\n`);
      break;
    default:
      // The other events are not shown: the terminal one comes back as the send's outcome.
      break;
  }
}

const lines = createInterface({ input: process.stdin, terminal: false });
process.stdout.write('you> ');
for await (const line of lines) {
  const prompt = line.trim();
  if (prompt === '') break;
  process.stdout.write('agent> ');
  try {
    const outcome = await client.sessions.send(sessionId, prompt, {
      tools,
      signal: stop.signal,
      onEvent: show,
    });
    if (outcome.type === 'error') process.stdout.write(`\n(error: ${outcome.error.error})`);
    if (outcome.type === 'cancelled') process.stdout.write('\n(cancelled)');
  } catch (error) {
    process.stdout.write(`\n(failed: ${error instanceof Error ? error.message : String(error)})`);
  }
  process.stdout.write('\nyou> ');
}
process.stdout.write('\nBye.\n');
await shutDown(0);
