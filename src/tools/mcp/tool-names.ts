import { createHash } from 'node:crypto';

const MAX_NAME_LENGTH = 64;
const HASH_LENGTH = 8;

/**
 * The model-facing names of one server's tools, by MCP tool name: `<prefix>_<tool>` with every
 * character outside `[a-zA-Z0-9_]` turned into `_`. A name longer than 64 characters, or one that two
 * tools share once sanitized, is cut and ends with a hash of the original tool name instead: the same
 * catalog always gives the same names, and distinct tools keep distinct names.
 */
export function modelToolNames(prefix: string, toolNames: readonly string[]): Map<string, string> {
  const plain = new Map(toolNames.map((name) => [name, `${sanitized(prefix)}_${sanitized(name)}`]));
  const uses = new Map<string, number>();
  for (const name of plain.values()) uses.set(name, (uses.get(name) ?? 0) + 1);
  return new Map(
    [...plain].map(([original, name]) => [
      original,
      name.length <= MAX_NAME_LENGTH && uses.get(name) === 1 ? name : hashed(name, original),
    ]),
  );
}

/** The model-facing name of a single tool under `prefix`. */
export function modelToolName(prefix: string, toolName: string): string {
  return modelToolNames(prefix, [toolName]).get(toolName) ?? toolName;
}

function sanitized(name: string): string {
  return name.replace(/[^a-zA-Z0-9_]/g, '_');
}

function hashed(name: string, original: string): string {
  const hash = createHash('sha256').update(original).digest('hex').slice(0, HASH_LENGTH);
  return `${name.slice(0, MAX_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}
