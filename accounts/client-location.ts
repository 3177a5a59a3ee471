import { BlockList, isIPv4, isIPv6 } from 'node:net';

const LOCAL = new BlockList();
for (const [network, prefix] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['100.64.0.0', 10],
] as const) {
  LOCAL.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  LOCAL.addSubnet(network, prefix, 'ipv6');
}

/** `::ffff:10.0.0.1` is the IPv4 address a dual-stack socket reports. */
function unmapped(address: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match?.[1] ?? address;
}

/**
 * Where a session came from, as well as can be told without a geolocation database: "Local
 * network" for private, loopback and link-local addresses, "Unknown" otherwise.
 */
export function describeLocation(address: string): string {
  const plain = unmapped(address.trim());
  if (isIPv4(plain)) return LOCAL.check(plain, 'ipv4') ? 'Local network' : 'Unknown';
  if (isIPv6(plain)) return LOCAL.check(plain, 'ipv6') ? 'Local network' : 'Unknown';
  return 'Unknown';
}
