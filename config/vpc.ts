import { commaList, ConfigError, integer, type Env } from './env.js';

/** Networking: where VPCs may live, how many an organization may hold, where NAT addresses come from. */
export interface VpcConfig {
  /** Region names a VPC may name; each has the availability zones `<region>a`, `b` and `c`. */
  regions: string[];
  /** VPCs one organization may hold at once. */
  limitPerOrganization: number;
  /** The IPv4 block NAT gateways take their public addresses from. */
  natPublicIpPool: string;
}

const REGION_NAME = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

function regions(env: Env): string[] {
  const name = 'CLOUDPLANE_REGIONS';
  const raw = env[name]?.trim() || 'us-east-1,us-west-2,eu-west-1';
  const entries = commaList(raw);
  for (const entry of entries) {
    if (!REGION_NAME.test(entry))
      throw new ConfigError(name, 'comma-separated region names like us-east-1', entry);
  }
  if (entries.length === 0) throw new ConfigError(name, 'at least one region name', raw);
  return [...new Set(entries)];
}

function ipv4Block(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim() || fallback;
  const match = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(raw);
  const octets = match?.[1]?.split('.').map(Number) ?? [];
  const prefix = Number(match?.[2]);
  const valid = octets.length === 4 && octets.every((octet) => octet <= 255) && prefix >= 8 && prefix <= 32;
  if (!valid) throw new ConfigError(name, 'an IPv4 block from /8 to /32 such as 203.0.113.0/24', raw);
  return raw;
}

export function vpcConfig(env: Env): VpcConfig {
  return {
    regions: regions(env),
    limitPerOrganization: integer(env, 'CLOUDPLANE_VPC_LIMIT', 5, 1, 10_000),
    natPublicIpPool: ipv4Block(env, 'CLOUDPLANE_NAT_PUBLIC_IP_POOL', '203.0.113.0/24'),
  };
}
