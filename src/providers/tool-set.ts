import { jsonSchema, tool, type JSONSchema7, type ToolSet } from 'ai';
import type { ModelToolDefinition } from '../engine/ports.ts';

/** The AI SDK tool set: definitions only, no `execute`, so every call comes back to our loop. */
export function modelToolSet(definitions: readonly ModelToolDefinition[]): ToolSet {
  const set: ToolSet = {};
  for (const definition of definitions) {
    set[definition.name] = tool({
      description: definition.description,
      inputSchema: jsonSchema(definition.inputSchema as JSONSchema7),
    });
  }
  return set;
}
