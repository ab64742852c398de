import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's package, the default when CHROMIUM_PATH is not set. */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

const INSTALL_HINT = "install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH";

/** Flags for a quiet headless Chromium in a container: no sandbox, no GPU, no calls home. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The Chromium to drive: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. When there is none, the
 * reason to skip the browser tests with, in words a person can act on.
 */
export function findChromium(): { executablePath: string } | { skip: string } {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    return existsSync(fromEnv)
      ? { executablePath: fromEnv }
      : { skip: `no Chromium found: CHROMIUM_PATH=${fromEnv} does not exist; ${INSTALL_HINT}` };
  }
  if (existsSync(DEBIAN_CHROMIUM)) return { executablePath: DEBIAN_CHROMIUM };
  return { skip: `no Chromium found: ${INSTALL_HINT}` };
}

/** A headless Chromium; the caller closes it. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
}
