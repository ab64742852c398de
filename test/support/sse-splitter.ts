/**
 * Splits an SSE body into blocks at blank lines, in time linear in the body's size: the pieces of
 * an unfinished block are kept as they came, only each new piece of text is scanned for the
 * boundary, and a block is joined once, when it is complete. (Appending every chunk to one string
 * and searching it again from the start costs time quadratic in a frame's size: about a second for
 * one 9 MB frame.) Empty blocks are skipped.
 */
export class SseSplitter {
  readonly #onBlock: (block: string) => void;
  #pieces: string[] = [];
  /** The kept pieces end with '\n': a '\n' at the start of the next text completes the blank line. */
  #keptEndsWithNewline = false;

  constructor(onBlock: (block: string) => void) {
    this.#onBlock = onBlock;
  }

  push(text: string): void {
    let start = 0;
    if (this.#keptEndsWithNewline && text.startsWith('\n')) {
      this.#emit(this.#pieces.join('').slice(0, -1));
      start = 1;
    }
    for (
      let boundary = text.indexOf('\n\n', start);
      boundary !== -1;
      boundary = text.indexOf('\n\n', start)
    ) {
      this.#pieces.push(text.slice(start, boundary));
      this.#emit(this.#pieces.join(''));
      start = boundary + 2;
    }
    if (start < text.length) {
      this.#pieces.push(text.slice(start));
      this.#keptEndsWithNewline = text.endsWith('\n');
    } else if (this.#pieces.length === 0) {
      this.#keptEndsWithNewline = false;
    }
  }

  #emit(block: string): void {
    this.#pieces = [];
    if (block !== '') this.#onBlock(block);
  }
}
