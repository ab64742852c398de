/**
 * Minimal SSE framing for the load generator: splits text into blocks at blank
 * lines and hands each block over unparsed, so the hot path stays cheap.
 */
export class SseSplitter {
  #buffer = '';
  readonly #onBlock: (block: string) => void;

  constructor(onBlock: (block: string) => void) {
    this.#onBlock = onBlock;
  }

  push(text: string): void {
    this.#buffer += text;
    let boundary = this.#buffer.indexOf('\n\n');
    while (boundary !== -1) {
      const block = this.#buffer.slice(0, boundary);
      this.#buffer = this.#buffer.slice(boundary + 2);
      if (block !== '') this.#onBlock(block);
      boundary = this.#buffer.indexOf('\n\n');
    }
  }
}

/** The `event:` line of a block, if any. */
export function eventType(block: string): string | undefined {
  let start: number;
  if (block.startsWith('event: ')) start = 7;
  else {
    const line = block.indexOf('\nevent: ');
    if (line === -1) return undefined;
    start = line + 8;
  }
  const end = block.indexOf('\n', start);
  return block.slice(start, end === -1 ? undefined : end);
}
