import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One file of the console as it is served. */
export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
}

/** The console's files under one version: a hash of all of them, so any change gives new URLs. */
export interface ConsoleAssets {
  version: string;
  files: ReadonlyMap<string, ConsoleAsset>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The console's own files: `console/` at the package root, served flat under their names. */
const CONSOLE_DIR = fileURLToPath(new URL('../../../console/', import.meta.url));

/**
 * Libraries the browser loads from `node_modules`, under the names the console's modules import them
 * by (relative imports only: no import map, no build step). Each is one ES module without bare imports.
 */
const VENDOR_MODULES: Readonly<Record<string, string>> = {
  'preact-htm.js': 'htm/preact/standalone',
  'eventsource-parser.js': 'eventsource-parser',
};

/** A `//# sourceMappingURL=` line would make developer tools fetch a map that is not served. */
const SOURCE_MAP_COMMENT = /^\/\/# sourceMappingURL=.*$/gm;

let loaded: ConsoleAssets | undefined;

/** The console's files, read and hashed once per process (every app of the process shares them). */
export function consoleAssets(): ConsoleAssets {
  return (loaded ??= loadConsoleAssets());
}

function loadConsoleAssets(): ConsoleAssets {
  const files = new Map<string, ConsoleAsset>();
  for (const name of readdirSync(CONSOLE_DIR).sort()) {
    const contentType = CONTENT_TYPES[extensionOf(name)];
    if (contentType) files.set(name, { body: readFileSync(`${CONSOLE_DIR}${name}`), contentType });
  }
  for (const [name, specifier] of Object.entries(VENDOR_MODULES)) {
    const source = readFileSync(fileURLToPath(import.meta.resolve(specifier)), 'utf8');
    files.set(name, {
      body: Buffer.from(source.replace(SOURCE_MAP_COMMENT, '')),
      contentType: CONTENT_TYPES['.js'] as string,
    });
  }
  const hash = createHash('sha256');
  for (const [name, asset] of files) hash.update(name).update('\0').update(asset.body).update('\0');
  return { version: hash.digest('hex').slice(0, 20), files };
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot === -1 ? '' : name.slice(dot);
}
