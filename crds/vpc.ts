/**
 * The VPC family: a Vpc and the parts that live inside it. Every part names its VPC in
 * `spec.vpcRef` and carries a controller ownerReference to it, so deleting the Vpc removes them.
 * Object names are the REST ids: uuids for VPCs and subnets, `sg-`, `acl-`, `rtb-`, `igw-` and
 * `nat-` followed by 17 hex digits for the rest.
 */
import type { Condition, KubeObject } from '../control-plane/types.js';
import type { KindDescriptor, PrinterColumn } from '../control-plane/kind-descriptor.js';
import {
  GROUP,
  READY_MESSAGE_COLUMN,
  READY_REASON_COLUMN,
  VERSION,
} from '../control-plane/kind-descriptor.js';

/** A private IPv4 network in one region. */
export interface VpcSpec {
  /** Display name; the object name is the VPC id. */
  name?: string;
  /** The VPC's IPv4 block, /16 to /28, e.g. 10.0.0.0/16. */
  cidrBlock: string;
  /** One of the platform's regions (CLOUDPLANE_REGIONS). */
  region: string;
  enableDnsHostnames?: boolean;
  enableDnsSupport?: boolean;
  enableFlowLogs?: boolean;
  /** Where flow logs go when enabled. */
  flowLogsDestination?: string;
  isDefault?: boolean;
}

export type VpcPhase = 'provisioning' | 'available' | 'deleting' | 'deleted';

export interface VpcStatus {
  phase?: VpcPhase;
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
  /** @asType integer */
  subnetCount?: number;
  /** @asType integer */
  routeTableCount?: number;
  /** @asType integer */
  natGatewayCount?: number;
  /** @asType integer */
  internetGatewayCount?: number;
  /** @asType integer */
  securityGroupCount?: number;
  /** @asType integer */
  networkAclCount?: number;
  /** The route table subnets use unless they name another. */
  mainRouteTableId?: string;
  /** The network ACL subnets use unless they name another. */
  defaultNetworkAclId?: string;
  defaultSecurityGroupId?: string;
}

/** The phase every part reports: `pending` until its controller accepted it. */
export type PartPhase = 'pending' | 'available' | 'failed';

/** Status common to the parts of a VPC. */
export interface PartStatus {
  phase?: PartPhase;
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
}

/** A range of a VPC's block in one availability zone. */
export interface SubnetSpec {
  /** The id (object name) of the VPC this subnet belongs to. */
  vpcRef: string;
  name?: string;
  /** Inside the VPC's block, /16 to /28, not overlapping a sibling subnet. */
  cidrBlock: string;
  /** `<region>a`, `<region>b` or `<region>c` of the VPC's region. */
  availabilityZone: string;
  mapPublicIpOnLaunch?: boolean;
  /** The route table to associate; the VPC's main route table when omitted. */
  routeTableId?: string;
  /** The network ACL to associate; the VPC's default network ACL when omitted. */
  networkAclId?: string;
}

export interface SubnetStatus extends PartStatus {
  /** Addresses of the block less the five reserved ones and those assigned. @asType integer */
  availableIpCount?: number;
  /** Addresses held by resources in the subnet (a NAT gateway holds one). @asType integer */
  assignedIpCount?: number;
  /** The associated route table (spec.routeTableId or the main one). */
  routeTableId?: string;
  /** The associated network ACL (spec.networkAclId or the default one). */
  networkAclId?: string;
}

/** `tcp`, `udp`, `icmp`, or `-1` for every protocol. */
export type RuleProtocol = 'tcp' | 'udp' | 'icmp' | '-1';

/** One security-group rule. */
export interface SecurityGroupRule {
  protocol: RuleProtocol;
  /** `<from>-<to>` inside 0-65535 with from <= to; omitted means every port. */
  portRange?: string;
  /** A CIDR block or the id of a security group of the same VPC. */
  source: string;
}

/** A stateful firewall attached to network interfaces in a VPC. */
export interface SecurityGroupSpec {
  vpcRef: string;
  name?: string;
  description?: string;
  /** The VPC's default group: created with the VPC, not deletable on its own. */
  isDefault?: boolean;
  inboundRules?: SecurityGroupRule[];
  outboundRules?: SecurityGroupRule[];
}

export type SecurityGroupStatus = PartStatus;

export type AclAction = 'allow' | 'deny';

/** One network ACL rule; rules apply in ascending ruleNumber, the first match decides. */
export interface NetworkAclRule {
  /** 1 to 32766; 32767 is the catch-all `*` rule. @asType integer */
  ruleNumber: number;
  protocol: RuleProtocol;
  portRange?: string;
  /** The CIDR block the rule matches (the source inbound, the destination outbound). */
  cidrBlock: string;
  action: AclAction;
}

/** A stateless filter on the traffic of the subnets associated with it. */
export interface NetworkAclSpec {
  vpcRef: string;
  isDefault?: boolean;
  inboundRules?: NetworkAclRule[];
  outboundRules?: NetworkAclRule[];
}

export type NetworkAclStatus = PartStatus;

/** One route: traffic to `destination` goes to `target`. */
export interface Route {
  /** An IPv4 CIDR block. */
  destination: string;
  /** `local` (inside the VPC) or a gateway id such as igw-… or nat-…. */
  target: string;
}

/** Where traffic leaving the associated subnets goes. */
export interface RouteTableSpec {
  vpcRef: string;
  name?: string;
  /** The VPC's main route table: created with the VPC. */
  main?: boolean;
  /** Routes besides the `local` route, which the controller keeps first. */
  routes?: Route[];
}

export interface RouteTableStatus extends PartStatus {
  /** Every route in effect, the `local` route first. */
  routes?: Route[];
  /** Subnets using this table. @asType integer */
  subnetAssociations?: number;
}

/** A VPC's way to and from the internet. */
export interface InternetGatewaySpec {
  vpcRef: string;
  name?: string;
}

export type InternetGatewayStatus = PartStatus;

/** Outbound-only internet access for private subnets, through a public address. */
export interface NatGatewaySpec {
  vpcRef: string;
  /** The subnet the gateway lives in; it takes one address there. */
  subnetId: string;
  /** The elastic IP allocation (eipalloc- and 17 hex digits) to use; allocated when omitted. */
  allocationId?: string;
}

export type NatGatewayPhase = 'pending' | 'available' | 'failed';

export interface NatGatewayStatus {
  phase?: NatGatewayPhase;
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
  publicIp?: string;
  allocationId?: string;
}

export type Vpc = KubeObject<VpcSpec, VpcStatus>;
export type Subnet = KubeObject<SubnetSpec, SubnetStatus>;
export type SecurityGroup = KubeObject<SecurityGroupSpec, SecurityGroupStatus>;
export type NetworkAcl = KubeObject<NetworkAclSpec, NetworkAclStatus>;
export type RouteTable = KubeObject<RouteTableSpec, RouteTableStatus>;
export type InternetGateway = KubeObject<InternetGatewaySpec, InternetGatewayStatus>;
export type NatGateway = KubeObject<NatGatewaySpec, NatGatewayStatus>;

/** Any part of a VPC: what every part's spec has in common. */
export type VpcPart = KubeObject<{ vpcRef: string }, PartStatus | NatGatewayStatus>;

function vpcKind(
  kind: string,
  plural: string,
  shortNames: string[],
  printerColumns: PrinterColumn[],
): KindDescriptor {
  return {
    group: GROUP,
    version: VERSION,
    kind,
    plural,
    singular: kind.toLowerCase(),
    namespaced: true,
    shortNames,
    categories: ['cloudplane', 'network'],
    // Every part says why it is (not) Ready next to its status, and what its condition says with -o wide.
    printerColumns: [
      ...printerColumns.flatMap((column) =>
        column.jsonPath === '.status.phase' ? [column, READY_REASON_COLUMN] : [column],
      ),
      READY_MESSAGE_COLUMN,
    ],
    typesFile: 'crds/vpc.ts',
  };
}

const VPC_COLUMN: PrinterColumn = { name: 'VPC', type: 'string', jsonPath: '.spec.vpcRef' };
const STATUS_COLUMN: PrinterColumn = { name: 'Status', type: 'string', jsonPath: '.status.phase' };

export const VPC = vpcKind(
  'Vpc',
  'vpcs',
  ['vpc'],
  [
    { name: 'CIDR', type: 'string', jsonPath: '.spec.cidrBlock' },
    { name: 'Region', type: 'string', jsonPath: '.spec.region' },
    STATUS_COLUMN,
    { name: 'Subnets', type: 'integer', jsonPath: '.status.subnetCount' },
    { name: 'Name', type: 'string', jsonPath: '.spec.name', priority: 1 },
  ],
);

export const SUBNET = vpcKind(
  'Subnet',
  'subnets',
  ['subnet'],
  [
    VPC_COLUMN,
    { name: 'CIDR', type: 'string', jsonPath: '.spec.cidrBlock' },
    { name: 'Zone', type: 'string', jsonPath: '.spec.availabilityZone' },
    { name: 'Available IPs', type: 'integer', jsonPath: '.status.availableIpCount' },
    STATUS_COLUMN,
  ],
);

export const SECURITY_GROUP = vpcKind(
  'SecurityGroup',
  'securitygroups',
  ['sg'],
  [VPC_COLUMN, { name: 'Group Name', type: 'string', jsonPath: '.spec.name' }, STATUS_COLUMN],
);

export const NETWORK_ACL = vpcKind(
  'NetworkAcl',
  'networkacls',
  ['acl'],
  [VPC_COLUMN, { name: 'Default', type: 'boolean', jsonPath: '.spec.isDefault' }, STATUS_COLUMN],
);

export const ROUTE_TABLE = vpcKind(
  'RouteTable',
  'routetables',
  ['rtb'],
  [
    VPC_COLUMN,
    { name: 'Main', type: 'boolean', jsonPath: '.spec.main' },
    { name: 'Subnets', type: 'integer', jsonPath: '.status.subnetAssociations' },
    STATUS_COLUMN,
  ],
);

export const INTERNET_GATEWAY = vpcKind(
  'InternetGateway',
  'internetgateways',
  ['igw'],
  [VPC_COLUMN, STATUS_COLUMN],
);

export const NAT_GATEWAY = vpcKind(
  'NatGateway',
  'natgateways',
  ['nat'],
  [
    VPC_COLUMN,
    { name: 'Subnet', type: 'string', jsonPath: '.spec.subnetId' },
    { name: 'Public IP', type: 'string', jsonPath: '.status.publicIp' },
    STATUS_COLUMN,
  ],
);

/** The VPC family. */
export const VPC_KINDS: KindDescriptor[] = [
  VPC,
  SUBNET,
  SECURITY_GROUP,
  NETWORK_ACL,
  ROUTE_TABLE,
  INTERNET_GATEWAY,
  NAT_GATEWAY,
];
