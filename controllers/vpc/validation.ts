/**
 * The rules a VPC and its parts must satisfy, shared by the REST facade (which answers 400) and
 * the reconcilers (which set Ready False with the same message for an object applied with
 * kubectl). Each check names the field as its caller spells it: `cidr_block` in the REST body,
 * `spec.cidrBlock` in the object.
 */
import type { RuleProtocol } from '../../crds/vpc.js';
import { CidrSyntaxError, contains, formatCidr, parseCidr, type Cidr } from './ipam.js';

/** One broken rule: the field, a short machine-readable rule name, and the sentence for people. */
export interface ValidationProblem {
  field: string;
  rule: string;
  message: string;
}

/** Thrown by `check*` functions; carries every problem found. */
export class VpcValidationError extends Error {
  constructor(readonly problems: ValidationProblem[]) {
    super(problems.map((problem) => problem.message).join('; '));
    this.name = 'VpcValidationError';
  }
}

export const MIN_BLOCK_PREFIX = 16;
export const MAX_BLOCK_PREFIX = 28;
export const PROTOCOLS: readonly RuleProtocol[] = ['tcp', 'udp', 'icmp', '-1'];
const ZONE_LETTERS = ['a', 'b', 'c'] as const;
const SECURITY_GROUP_ID = /^sg-[0-9a-f]{17}$/;

function problem(field: string, rule: string, message: string): ValidationProblem {
  return { field, rule, message: `${field}: ${message}` };
}

/** Parses a VPC or subnet block and checks its size is /16 to /28. */
export function checkBlock(field: string, text: string): Cidr {
  let cidr: Cidr;
  try {
    cidr = parseCidr(text);
  } catch (error) {
    if (error instanceof CidrSyntaxError)
      throw new VpcValidationError([problem(field, 'cidr', error.message)]);
    throw error;
  }
  if (cidr.prefix < MIN_BLOCK_PREFIX || cidr.prefix > MAX_BLOCK_PREFIX) {
    throw new VpcValidationError([
      problem(
        field,
        'prefix_size',
        `${text} is a /${cidr.prefix}; blocks must be from /${MIN_BLOCK_PREFIX} to /${MAX_BLOCK_PREFIX}`,
      ),
    ]);
  }
  return cidr;
}

/** Parses any IPv4 block (route destinations, rule sources), of any size. */
export function checkAnyBlock(field: string, text: string): Cidr {
  try {
    return parseCidr(text);
  } catch (error) {
    if (error instanceof CidrSyntaxError)
      throw new VpcValidationError([problem(field, 'cidr', error.message)]);
    throw error;
  }
}

export function checkRegion(field: string, region: string, regions: readonly string[]): void {
  if (!regions.includes(region)) {
    throw new VpcValidationError([
      problem(
        field,
        'region',
        `${JSON.stringify(region)} is not a region; choose one of ${regions.join(', ')}`,
      ),
    ]);
  }
}

export function availabilityZones(region: string): string[] {
  return ZONE_LETTERS.map((letter) => `${region}${letter}`);
}

export function checkAvailabilityZone(field: string, zone: string, region: string): void {
  const zones = availabilityZones(region);
  if (!zones.includes(zone)) {
    throw new VpcValidationError([
      problem(
        field,
        'availability_zone',
        `${JSON.stringify(zone)} is not an availability zone of ${region}; choose one of ${zones.join(', ')}`,
      ),
    ]);
  }
}

/** A subnet block: a valid /16-/28 block inside the VPC's block. */
export function checkSubnetBlock(field: string, text: string, vpcBlock: Cidr): Cidr {
  const cidr = checkBlock(field, text);
  if (!contains(vpcBlock, cidr)) {
    throw new VpcValidationError([
      problem(field, 'within_vpc', `${text} is not inside the VPC's block ${formatCidr(vpcBlock)}`),
    ]);
  }
  return cidr;
}

/** `<from>-<to>` with 0 <= from <= to <= 65535, or a single port. */
export function checkPortRange(field: string, text: string): void {
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text);
  const from = Number(match?.[1]);
  const to = Number(match?.[2] ?? match?.[1]);
  if (!match) {
    throw new VpcValidationError([
      problem(field, 'port_range', `${JSON.stringify(text)} is not <from>-<to>`),
    ]);
  }
  if (from > 65535 || to > 65535) {
    throw new VpcValidationError([problem(field, 'port_range', `${text} must lie inside 0-65535`)]);
  }
  if (from > to) {
    throw new VpcValidationError([problem(field, 'port_range', `${text} starts after it ends (from > to)`)]);
  }
}

export interface RuleInput {
  protocol: string;
  portRange?: string | undefined;
  source: string;
}

/**
 * A security-group rule: a known protocol, a port range for tcp and udp inbound rules, and a
 * source that is a CIDR block or a security group of the same VPC (`groupIds`).
 */
export function checkSecurityGroupRule(
  field: string,
  rule: RuleInput,
  options: { groupIds: ReadonlySet<string>; portRangeRequired: boolean; names: { portRange: string } },
): void {
  const problems: ValidationProblem[] = [];
  const collect = (check: () => void) => {
    try {
      check();
    } catch (error) {
      if (!(error instanceof VpcValidationError)) throw error;
      problems.push(...error.problems);
    }
  };
  if (!PROTOCOLS.includes(rule.protocol as RuleProtocol)) {
    problems.push(
      problem(
        `${field}.protocol`,
        'protocol',
        `${JSON.stringify(rule.protocol)} is not one of tcp, udp, icmp, -1`,
      ),
    );
  }
  const portField = `${field}.${options.names.portRange}`;
  if (rule.portRange !== undefined) collect(() => checkPortRange(portField, rule.portRange!));
  else if (options.portRangeRequired && (rule.protocol === 'tcp' || rule.protocol === 'udp')) {
    problems.push(problem(portField, 'required', `a ${rule.protocol} rule needs a port range`));
  }
  if (SECURITY_GROUP_ID.test(rule.source)) {
    if (!options.groupIds.has(rule.source)) {
      problems.push(
        problem(`${field}.source`, 'security_group', `${rule.source} is not a security group of this VPC`),
      );
    }
  } else if (rule.source.startsWith('sg-')) {
    problems.push(problem(`${field}.source`, 'security_group', `${rule.source} is not a security group id`));
  } else {
    collect(() => checkAnyBlock(`${field}.source`, rule.source));
  }
  if (problems.length > 0) throw new VpcValidationError(problems);
}

/** Runs every check, collecting the problems of all of them. */
export function collectProblems(checks: readonly (() => void)[]): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  for (const check of checks) {
    try {
      check();
    } catch (error) {
      if (!(error instanceof VpcValidationError)) throw error;
      problems.push(...error.problems);
    }
  }
  return problems;
}
