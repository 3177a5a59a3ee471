/**
 * IPv4 address arithmetic for VPCs and subnets: parsing blocks, containment, overlap, address
 * accounting and finding free ranges. Addresses are held as bigint so sums never lose precision.
 */
import ipaddr from 'ipaddr.js';

/** An IPv4 block in canonical form: `network` has no host bits set. */
export interface Cidr {
  network: bigint;
  prefix: number;
}

/** Addresses every subnet keeps back: network, router, DNS, one for future use, broadcast. */
export const RESERVED_ADDRESSES_PER_SUBNET = 5;

const IPV4_BITS = 32;
const DOTTED_QUAD = /^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/;

/** Why a string is not a usable block, phrased to follow the field name. */
export class CidrSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CidrSyntaxError';
  }
}

function toBigInt(octets: number[]): bigint {
  return octets.reduce((value, octet) => (value << 8n) | BigInt(octet), 0n);
}

export function addressToString(address: bigint): string {
  const octets = [24n, 16n, 8n, 0n].map((shift) => Number((address >> shift) & 0xffn));
  return octets.join('.');
}

export function parseAddress(text: string): bigint {
  if (!ipaddr.IPv4.isValidFourPartDecimal(text)) throw new CidrSyntaxError(`${text} is not an IPv4 address`);
  return toBigInt(ipaddr.IPv4.parse(text).octets);
}

/**
 * Parses `a.b.c.d/n`. Refuses a block with host bits set rather than silently truncating it,
 * naming the block that was probably meant.
 */
export function parseCidr(text: string): Cidr {
  const canonical = parseCanonicalCidr(text);
  if (canonical) return canonical;
  if (!DOTTED_QUAD.test(text) || !ipaddr.isValidCIDR(text)) {
    throw new CidrSyntaxError(`${JSON.stringify(text)} is not an IPv4 CIDR block such as 10.0.0.0/16`);
  }
  const [address, prefix] = ipaddr.IPv4.parseCIDR(text);
  const value = toBigInt(address.octets);
  const network = value & maskOf(prefix);
  if (network !== value) {
    const meant = formatCidr({ network, prefix });
    throw new CidrSyntaxError(`${text} has host bits set; the block is ${meant}`);
  }
  return { network, prefix };
}

const DIGIT_0 = 48;
const DOT = 46;
const SLASH = 47;

/**
 * The common case without ipaddr.js or a regular expression: a block whose numbers have no
 * leading zeros (ipaddr.js reads those as octal) and no host bits. Overlap checks parse every
 * claimed block of a scope, so this runs thousands of times per claim. Anything else answers
 * undefined for the full parser.
 */
function parseCanonicalCidr(text: string): Cidr | undefined {
  const parts: number[] = [];
  let number = 0;
  let digits = 0;
  for (let position = 0; position <= text.length; position += 1) {
    const code = position < text.length ? text.charCodeAt(position) : -1;
    const digit = code - DIGIT_0;
    if (digit >= 0 && digit <= 9) {
      if (digits > 0 && number === 0) return undefined;
      number = number * 10 + digit;
      digits += 1;
      continue;
    }
    const separator = parts.length < 3 ? DOT : parts.length === 3 ? SLASH : -1;
    if (digits === 0 || code !== separator || number > (parts.length < 4 ? 255 : IPV4_BITS)) return undefined;
    parts.push(number);
    number = 0;
    digits = 0;
    if (code === -1) break;
  }
  const [a, b, c, d, prefix] = parts;
  if (prefix === undefined) return undefined;
  const value = ((a! * 256 + b!) * 256 + c!) * 256 + d!;
  if (value % 2 ** (IPV4_BITS - prefix) !== 0) return undefined;
  return { network: BigInt(value), prefix };
}

function maskOf(prefix: number): bigint {
  return ((1n << BigInt(IPV4_BITS)) - 1n) ^ ((1n << BigInt(IPV4_BITS - prefix)) - 1n);
}

export function formatCidr(cidr: Cidr): string {
  return `${addressToString(cidr.network)}/${cidr.prefix}`;
}

export function addressCount(cidr: Cidr): bigint {
  return 1n << BigInt(IPV4_BITS - cidr.prefix);
}

/** The last address of the block. */
export function lastAddress(cidr: Cidr): bigint {
  return cidr.network + addressCount(cidr) - 1n;
}

/** Whether every address of `inner` lies in `outer`. */
export function contains(outer: Cidr, inner: Cidr): boolean {
  return (
    inner.prefix >= outer.prefix && inner.network >= outer.network && lastAddress(inner) <= lastAddress(outer)
  );
}

/** Whether the blocks share at least one address. Aligned blocks either nest or are disjoint. */
export function overlaps(a: Cidr, b: Cidr): boolean {
  return a.network <= lastAddress(b) && b.network <= lastAddress(a);
}

/** Addresses a subnet can still hand out: all of them less the five reserved and those assigned. */
export function availableIpCount(cidr: Cidr, assigned: number): number {
  const free = addressCount(cidr) - BigInt(RESERVED_ADDRESSES_PER_SUBNET) - BigInt(assigned);
  return Number(free < 0n ? 0n : free);
}

/**
 * The first `count` blocks of size `/prefix` inside `within` that overlap none of `taken`, lowest
 * address first. Skips past a taken block in one step, so the walk is bounded by the number of
 * taken blocks plus the answer's size, not by the size of the VPC.
 */
export function nextFreeBlocks(within: Cidr, taken: readonly Cidr[], prefix: number, count: number): Cidr[] {
  if (prefix < within.prefix || prefix > IPV4_BITS) return [];
  const size = 1n << BigInt(IPV4_BITS - prefix);
  const end = lastAddress(within);
  const sorted = [...taken].sort((a, b) => (a.network < b.network ? -1 : a.network > b.network ? 1 : 0));
  const found: Cidr[] = [];
  let candidate = within.network;
  while (found.length < count && candidate + size - 1n <= end) {
    const block = { network: candidate, prefix };
    const blocker = sorted.find((other) => overlaps(other, block));
    if (!blocker) {
      found.push(block);
      candidate += size;
      continue;
    }
    const after = lastAddress(blocker) + 1n;
    candidate = ((after + size - 1n) / size) * size;
  }
  return found;
}

/**
 * Yields the addresses of `pool` usable as public addresses in order: the network and broadcast
 * addresses are left out unless the pool is a single address or a /31.
 */
export function* poolAddresses(pool: Cidr): Generator<bigint> {
  const first = pool.network;
  const last = lastAddress(pool);
  const edges = pool.prefix <= 30;
  for (let address = edges ? first + 1n : first; address <= (edges ? last - 1n : last); address++) {
    yield address;
  }
}
