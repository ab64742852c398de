import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import type { AddressPolicy } from './address-policy.ts';
import { addressRefused } from './fetch-refused-error.ts';

export interface GuardedAgentOptions {
  policy: AddressPolicy;
  /** Resolves host names; dns.lookup unless a test injects one. */
  lookup?: LookupFunction;
}

/**
 * An undici Agent that connects only to addresses the policy accepts. The check runs inside the
 * socket's own lookup, on every address the name resolves to, and the socket connects to exactly
 * those checked addresses: a DNS answer cannot change between the check and the connect.
 */
export function createGuardedAgent(options: GuardedAgentOptions): Agent {
  const { policy } = options;
  const connect = buildConnector({ lookup: guardedLookup(policy, options.lookup ?? dnsLookup) });
  return new Agent({
    connect(connectOptions, callback) {
      const { hostname } = connectOptions;
      // IP-literal hosts never reach the lookup (net.connect skips it), so they are checked here.
      const reason = isIP(hostname) === 0 ? undefined : policy.check(hostname);
      if (reason !== undefined) {
        callback(addressRefused(hostname, hostname, hostname, reason), null);
        return;
      }
      connect(connectOptions, callback);
    },
  });
}

/** A lookup that resolves every address of a name and fails unless the policy accepts them all. */
export function guardedLookup(policy: AddressPolicy, resolve: LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, resolved) => {
      if (error) {
        callback(error, []);
        return;
      }
      const addresses = addressList(resolved);
      for (const { address } of addresses) {
        const reason = policy.check(address);
        if (reason !== undefined) {
          callback(addressRefused(hostname, hostname, address, reason), []);
          return;
        }
      }
      const first = addresses[0];
      if (first === undefined) {
        callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      } else if (options.all) {
        callback(null, addresses);
      } else {
        callback(null, first.address, first.family);
      }
    });
  };
}

function addressList(resolved: string | LookupAddress[]): LookupAddress[] {
  if (typeof resolved !== 'string') return resolved;
  return [{ address: resolved, family: isIP(resolved) }];
}
