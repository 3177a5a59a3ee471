import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../control-plane/kind-descriptor.js';
import type {
  InternetGateway,
  NetworkAclRule,
  Route,
  RouteTable,
  SecurityGroupRule,
  Vpc,
} from '../../crds/vpc.js';
import {
  aclRuleProblems,
  attachedInternetGateway,
  effectiveRoutes,
  routeProblems,
  routeStates,
  securityGroupRuleProblems,
  SPEC_RULE_FIELDS,
  subnetProblems,
  vpcSpecProblems,
} from '../../controllers/vpc/engine.js';

/** A VPC in us-east-1 with the given block. */
function aVpc(cidrBlock = '10.0.0.0/16', region = 'us-east-1'): Vpc {
  return {
    apiVersion: API_VERSION,
    kind: 'Vpc',
    metadata: { name: 'vpc-1', namespace: 'org-1' },
    spec: { cidrBlock, region },
  } as Vpc;
}

function aRouteTable(routes: Route[]): RouteTable {
  return {
    apiVersion: API_VERSION,
    kind: 'RouteTable',
    metadata: { name: 'rtb-1', namespace: 'org-1' },
    spec: { vpcRef: 'vpc-1', routes },
  } as RouteTable;
}

const fieldsOf = (problems: { field: string }[]) => problems.map((problem) => problem.field);
const IGW = 'igw-0123456789abcdef0';

describe('vpcSpecProblems', () => {
  it.each([
    ['a valid spec', { cidrBlock: '10.0.0.0/16', region: 'us-east-1' }, []],
    ['a block wider than /16', { cidrBlock: '10.0.0.0/8', region: 'us-east-1' }, ['spec.cidrBlock']],
    ['a block that is not one', { cidrBlock: 'ten', region: 'us-east-1' }, ['spec.cidrBlock']],
    ['an unknown region', { cidrBlock: '10.0.0.0/16', region: 'mars-1' }, ['spec.region']],
    ['both', { cidrBlock: '10.0.0.0/30', region: 'mars-1' }, ['spec.cidrBlock', 'spec.region']],
  ])('%s', (_case, spec, fields) => {
    expect(fieldsOf(vpcSpecProblems(spec, ['us-east-1', 'eu-west-1']))).toEqual(fields);
  });
});

describe('subnetProblems', () => {
  const fields = { cidrBlock: 'cidr_block', availabilityZone: 'availability_zone' };
  it.each([
    ['inside the VPC in one of its zones', '10.0.1.0/24', 'us-east-1a', []],
    ['outside the VPC block', '10.1.0.0/24', 'us-east-1a', ['cidr_block']],
    ['in another region zone', '10.0.1.0/24', 'eu-west-1a', ['availability_zone']],
  ])('%s', (_case, cidrBlock, availabilityZone, expected) => {
    expect(fieldsOf(subnetProblems(fields, { cidrBlock, availabilityZone }, aVpc()))).toEqual(expected);
  });
});

describe('routes', () => {
  it('puts the local route first and drops a local route the table names itself', () => {
    const table = aRouteTable([
      { destination: '10.0.0.0/16', target: 'local' },
      { destination: '0.0.0.0/0', target: IGW },
    ]);
    expect(effectiveRoutes(table, aVpc())).toEqual([
      { destination: '10.0.0.0/16', target: 'local' },
      { destination: '0.0.0.0/0', target: IGW },
    ]);
  });

  it.each([
    ['a live gateway', new Set([IGW]), 'active'],
    ['a gateway gone or going', new Set<string>(), 'blackhole'],
  ])('marks a route to %s %s', (_case, live, state) => {
    const [local, route] = routeStates(
      [
        { destination: '10.0.0.0/16', target: 'local' },
        { destination: '0.0.0.0/0', target: IGW },
      ],
      live,
    );
    expect(local?.state).toBe('active');
    expect(route?.state).toBe(state);
  });

  it.each([
    ['valid routes', [{ destination: '0.0.0.0/0', target: IGW }], []],
    ['a bad destination', [{ destination: '300.0.0.0/0', target: IGW }], ['spec.routes[0].destination']],
    [
      'a target that is no gateway',
      [{ destination: '0.0.0.0/0', target: 'nowhere' }],
      ['spec.routes[0].target'],
    ],
  ])('routeProblems: %s', (_case, routes, fields) => {
    expect(fieldsOf(routeProblems(routes))).toEqual(fields);
  });
});

describe('rule problems', () => {
  const aclRule = (overrides: Partial<NetworkAclRule>): NetworkAclRule => ({
    ruleNumber: 100,
    protocol: 'tcp',
    cidrBlock: '0.0.0.0/0',
    action: 'allow',
    portRange: '443',
    ...overrides,
  });

  it.each([
    ['a valid rule', aclRule({}), []],
    ['an unknown protocol', aclRule({ protocol: 'sctp' as NetworkAclRule['protocol'] }), ['in[0].protocol']],
    ['a rule number past the catch-all', aclRule({ ruleNumber: 40000 }), ['in[0].ruleNumber']],
    ['a bad port range', aclRule({ portRange: '9-1' }), ['in[0].portRange']],
  ])('aclRuleProblems: %s', (_case, rule, fields) => {
    expect(fieldsOf(aclRuleProblems('in', [rule]))).toEqual(fields);
  });

  const sgRule = (overrides: Partial<SecurityGroupRule>): SecurityGroupRule => ({
    protocol: 'tcp',
    portRange: '22',
    source: '10.0.0.0/8',
    ...overrides,
  });
  const ownGroup = 'sg-0123456789abcdef0';

  it.each([
    ['a valid rule', sgRule({}), []],
    ['a group of this VPC as the source', sgRule({ source: ownGroup }), []],
    ['a group of another VPC', sgRule({ source: 'sg-fedcba98765432100' }), ['spec.inboundRules[0].source']],
    ['a source that is no block', sgRule({ source: 'anywhere' }), ['spec.inboundRules[0].source']],
    ['a tcp rule without ports', sgRule({ portRange: undefined }), ['spec.inboundRules[0].portRange']],
  ])('securityGroupRuleProblems: %s', (_case, rule, fields) => {
    const problems = securityGroupRuleProblems(
      { inbound: [rule], outbound: [] },
      new Set([ownGroup]),
      SPEC_RULE_FIELDS,
    );
    expect(fieldsOf(problems)).toEqual(fields);
  });
});

describe('attachedInternetGateway', () => {
  const gateway = (name: string, createdAt: string, deleting = false): InternetGateway =>
    ({
      apiVersion: API_VERSION,
      kind: 'InternetGateway',
      metadata: {
        name,
        namespace: 'org-1',
        creationTimestamp: createdAt,
        ...(deleting ? { deletionTimestamp: '2026-03-01T10:00:00Z' } : {}),
      },
      spec: { vpcRef: 'vpc-1' },
    }) as InternetGateway;

  it.each([
    { what: 'none', gateways: [], attached: undefined },
    {
      what: 'the first made',
      gateways: [gateway('igw-b', '2026-03-01T09:00:02Z'), gateway('igw-a', '2026-03-01T09:00:01Z')],
      attached: 'igw-a',
    },
    {
      what: 'by name when made in the same second',
      gateways: [gateway('igw-b', '2026-03-01T09:00:00Z'), gateway('igw-a', '2026-03-01T09:00:00Z')],
      attached: 'igw-a',
    },
    {
      what: 'not one being deleted',
      gateways: [gateway('igw-a', '2026-03-01T09:00:00Z', true), gateway('igw-b', '2026-03-01T09:00:05Z')],
      attached: 'igw-b',
    },
  ])('keeps $what', ({ gateways, attached }) => {
    expect(attachedInternetGateway(gateways)?.metadata.name).toBe(attached);
  });
});
