import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { InvalidRequestError } from '../domain/errors.ts';

/**
 * A webhook `url` (extensions §7): `https:`, or `http:` to an address `AGENT_RUNS_FETCH_ALLOW`
 * allows (every address its host resolves to lies in an allowed range). Each delivery still goes
 * through the SSRF guard, which checks the address it connects to.
 */
export async function checkWebhookUrl(value: string, fetchAllow: readonly string[]): Promise<string> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidRequestError('url: must be an absolute https: URL');
  }
  if (url.username || url.password) throw new InvalidRequestError('url: must not hold credentials');
  if (url.protocol === 'https:') return url.href;
  if (url.protocol !== 'http:') throw new InvalidRequestError('url: must be an https: URL');
  if (!(await allowedHost(url.hostname, fetchAllow))) {
    throw new InvalidRequestError(
      'url: http: is accepted only to an address AGENT_RUNS_FETCH_ALLOW allows; use https:',
    );
  }
  return url.href;
}

async function allowedHost(hostname: string, fetchAllow: readonly string[]): Promise<boolean> {
  if (fetchAllow.length === 0) return false;
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  let addresses: string[];
  try {
    addresses = isIP(host) === 0 ? (await lookup(host, { all: true })).map((entry) => entry.address) : [host];
  } catch {
    return false;
  }
  const ranges = fetchAllow.map((cidr) => ipaddr.parseCIDR(cidr));
  return (
    addresses.length > 0 &&
    addresses.every((address) => {
      const parsed = ipaddr.process(address);
      return ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
    })
  );
}
