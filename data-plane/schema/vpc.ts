import type { Flag } from './columns.js';

/** The VPC family: CIDR claims, tombstones and public addresses. */
export interface VpcTables {
  vpc_cidr_claims: VpcCidrClaimsTable;
  vpc_tombstones: VpcTombstonesTable;
  vpc_public_ips: VpcPublicIpsTable;
}

/**
 * A VPC's or subnet's hold on its block within a scope (`region:<name>` for VPCs, `vpc:<id>` for
 * subnets). Written in the same serialised transaction as the overlap check, so two overlapping
 * blocks can never both be claimed; released when the resource is finally deleted.
 */
export interface VpcCidrClaimsTable {
  namespace: string;
  resource_id: string;
  kind: 'Vpc' | 'Subnet';
  scope: string;
  resource_name: string;
  cidr_block: string;
  created_at: string;
}

/** What remains of a deleted VPC, listed with `status=deleted` until garbage collection purges it. */
export interface VpcTombstonesTable {
  namespace: string;
  vpc_id: string;
  name: string;
  cidr_block: string;
  region: string;
  is_default: Flag;
  flow_logs_enabled: Flag;
  created_at: string;
  deleted_at: string;
}

/** A public address of the NAT pool held by one NAT gateway; the primary key keeps it unique. */
export interface VpcPublicIpsTable {
  address: string;
  allocation_id: string;
  namespace: string;
  nat_gateway_id: string;
  allocated_at: string;
}
