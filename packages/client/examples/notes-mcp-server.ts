/**
 * A tiny MCP server over stdio for the chat example: an in-memory notepad with `add_note`,
 * `list_notes` and `clear_notes`. Built on the official SDK; `chat-cli.ts` starts it as a child
 * process and serves its tools to the agent as an `mcp_local` ref.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';

const notes: string[] = [];

const server = new Server({ name: 'notes', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: 'add_note',
      description: 'Adds a note to the notepad.',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', minLength: 1, description: 'The note.' } },
        required: ['text'],
      },
    },
    {
      name: 'list_notes',
      description: 'Lists the notes, oldest first.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'clear_notes',
      description: 'Deletes every note.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { destructiveHint: true },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
  const { name, arguments: args } = request.params;
  switch (name) {
    case 'add_note': {
      const text = typeof args?.text === 'string' ? args.text.trim() : '';
      if (text === '') return { isError: true, content: [{ type: 'text', text: 'a note needs some text' }] };
      notes.push(text);
      return { content: [{ type: 'text', text: `Noted (${notes.length} in total).` }] };
    }
    case 'list_notes':
      return {
        content: [
          {
            type: 'text',
            text:
              notes.length === 0
                ? 'No notes.'
                : notes.map((note, index) => `${index + 1}. ${note}`).join('\n'),
          },
        ],
      };
    case 'clear_notes':
      notes.length = 0;
      return { content: [{ type: 'text', text: 'All notes deleted.' }] };
    default:
      return { isError: true, content: [{ type: 'text', text: `unknown tool ${name}` }] };
  }
});

await server.connect(new StdioServerTransport());
