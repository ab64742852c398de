/**
 * An operator plugin module: start the service with `AGENT_RUNS_PLUGINS=./examples/plugins/shout.ts`
 * and a run can use `{ kind: 'svc_plugin', name: 'shout' }`.
 */
import type { ToolPluginModule } from '../../src/tools/plugins/tool-plugin.ts';

const shout: ToolPluginModule = {
  name: 'shout',
  plugins: [
    {
      name: 'shout',
      description: 'Returns the text in upper case.',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string', description: 'The text to shout.' } },
        required: ['text'],
        additionalProperties: false,
      },
      readOnly: true,
      async execute(args) {
        return String(args.text).toUpperCase();
      },
    },
  ],
};

export default shout;
