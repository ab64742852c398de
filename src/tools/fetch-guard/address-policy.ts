import ipaddr from 'ipaddr.js';

/** Why a server-side fetch may not reach an address: anything but globally routable unicast. */
export type RefusalReason =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'carrier-grade-nat'
  | 'unique-local'
  | 'ipv4-translation'
  | 'special-purpose'
  | 'not-an-address';

export type AddressClass = 'public' | RefusalReason;

export interface AddressPolicy {
  /** Undefined when the address may be fetched; otherwise why it may not. */
  check(address: string): RefusalReason | undefined;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

// Cloud instance-metadata endpoints (AWS, GCP, Azure, ECS, EKS pod identity, Alibaba). Their ranges
// are refused anyway; naming them makes the refusal say what was at stake.
const METADATA_RANGES: readonly Range[] = [
  '169.254.169.254/32',
  '169.254.170.2/32',
  '169.254.170.23/32',
  '100.100.100.200/32',
  'fd00:ec2::254/128',
  'fd00:ec2::23/128',
].map((cidr) => ipaddr.parseCIDR(cidr));

// ipaddr.js range names → our reasons; any range not named here (and not 'unicast') is special-purpose.
const REASON_OF_RANGE: Readonly<Record<string, RefusalReason>> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
  reserved: 'reserved',
  carrierGradeNat: 'carrier-grade-nat',
  uniqueLocal: 'unique-local',
  ipv4Mapped: 'ipv4-translation',
  rfc6145: 'ipv4-translation',
  rfc6052: 'ipv4-translation',
  '6to4': 'ipv4-translation',
  teredo: 'ipv4-translation',
};

const DESCRIPTION: Readonly<Record<RefusalReason, string>> = {
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved address',
  'carrier-grade-nat': 'a carrier-grade NAT address',
  'unique-local': 'a unique local IPv6 address',
  'ipv4-translation': 'an IPv4-translation address (NAT64, 6to4, Teredo)',
  'special-purpose': 'a special-purpose address',
  'not-an-address': 'not an IP address',
};

/** "a private address", for messages such as "10.0.0.5 is a private address". */
export function describeRefusal(reason: RefusalReason): string {
  return DESCRIPTION[reason];
}

/** The class of an IP address string; IPv4-mapped IPv6 addresses are classed as the IPv4 they carry. */
export function classifyAddress(address: string): AddressClass {
  const parsed = parseAddress(address);
  if (parsed === undefined) return 'not-an-address';
  if (METADATA_RANGES.some((range) => inRange(parsed, range))) return 'metadata';
  const range: string = parsed.range();
  if (range === 'unicast') return 'public';
  return REASON_OF_RANGE[range] ?? 'special-purpose';
}

/** Refuses every address that is not public unless it lies in one of the operator's allowed CIDR ranges. */
export function createAddressPolicy(allow: readonly string[]): AddressPolicy {
  const allowed = allow.map((cidr) => {
    if (!ipaddr.isValidCIDR(cidr)) throw new Error(`not a CIDR range: ${cidr}`);
    return ipaddr.parseCIDR(cidr);
  });
  return {
    check(address) {
      const addressClass = classifyAddress(address);
      if (addressClass === 'public') return undefined;
      if (addressClass === 'not-an-address') return addressClass;
      // Both forms of an IPv4-mapped address count, so 127.0.0.0/8 and ::ffff:0:0/96 each allow ::ffff:127.0.0.1.
      const forms = [ipaddr.parse(address), ipaddr.process(address)];
      const isAllowed = allowed.some((range) => forms.some((form) => inRange(form, range)));
      return isAllowed ? undefined : addressClass;
    },
  };
}

function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  return ipaddr.isValid(address) ? ipaddr.process(address) : undefined;
}

function inRange(address: ipaddr.IPv4 | ipaddr.IPv6, [network, bits]: Range): boolean {
  return address.kind() === network.kind() && address.match(network, bits);
}
