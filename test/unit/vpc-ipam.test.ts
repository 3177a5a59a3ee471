import { describe, expect, it } from 'vitest';
import {
  availableIpCount,
  contains,
  formatCidr,
  nextFreeBlocks,
  overlaps,
  parseCidr,
} from '../../controllers/vpc/ipam.js';
import {
  checkBlock,
  checkPortRange,
  checkSubnetBlock,
  VpcValidationError,
} from '../../controllers/vpc/validation.js';

const cidr = parseCidr;

describe('CIDR maths', () => {
  it.each([
    ['10.0.0.0/16', '10.0.1.0/24', true],
    ['10.0.0.0/16', '10.0.0.0/16', true],
    ['10.0.0.0/16', '10.1.0.0/24', false],
    ['10.0.0.0/24', '10.0.0.0/16', false],
  ])('%s contains %s: %s', (outer, inner, expected) => {
    expect(contains(cidr(outer), cidr(inner))).toBe(expected);
  });

  it.each([
    ['10.0.0.0/16', '10.0.255.0/24', true],
    ['10.0.0.0/16', '10.1.0.0/16', false],
    ['10.0.0.0/24', '10.0.0.128/25', true],
    ['10.0.0.0/25', '10.0.0.128/25', false],
  ])('%s overlaps %s: %s', (a, b, expected) => {
    expect(overlaps(cidr(a), cidr(b))).toBe(expected);
    expect(overlaps(cidr(b), cidr(a))).toBe(expected);
  });

  it.each([
    ['10.0.0.0/16', 0, 65531],
    ['10.0.0.0/28', 0, 11],
    ['10.0.0.0/28', 1, 10],
  ])('a %s with %i assigned has %i available addresses', (block, assigned, expected) => {
    expect(availableIpCount(cidr(block), assigned)).toBe(expected);
  });

  it.each([
    ['10.0.0.0/16', [], 24, 2, ['10.0.0.0/24', '10.0.1.0/24']],
    ['10.0.0.0/16', ['10.0.0.0/24', '10.0.2.0/23'], 24, 2, ['10.0.1.0/24', '10.0.4.0/24']],
    ['10.0.0.0/16', ['10.0.0.0/28'], 20, 1, ['10.0.16.0/20']],
    ['10.0.0.0/28', ['10.0.0.0/28'], 28, 1, []],
  ])(
    'inside %s, around %j, the next free /%i blocks (%i) are %j',
    (within, taken, prefix, count, expected) => {
      const found = nextFreeBlocks(cidr(within), taken.map(cidr), prefix, count).map(formatCidr);
      expect(found).toEqual(expected);
    },
  );

  it.each([
    ['10.0.0.1/16', 'cidr_block: 10.0.0.1/16 has host bits set; the block is 10.0.0.0/16'],
    ['banana', 'cidr_block: "banana" is not an IPv4 CIDR block such as 10.0.0.0/16'],
    ['10.0.0.0/8', 'cidr_block: 10.0.0.0/8 is a /8; blocks must be from /16 to /28'],
    ['10.0.0.0/29', 'cidr_block: 10.0.0.0/29 is a /29; blocks must be from /16 to /28'],
  ])('refuses the block %s naming the field and the rule', (text, message) => {
    expect(() => checkBlock('cidr_block', text)).toThrow(VpcValidationError);
    expect(() => checkBlock('cidr_block', text)).toThrow(message);
  });

  it('refuses a subnet outside its VPC', () => {
    expect(() => checkSubnetBlock('cidr_block', '10.1.0.0/24', cidr('10.0.0.0/16'))).toThrow(
      "cidr_block: 10.1.0.0/24 is not inside the VPC's block 10.0.0.0/16",
    );
  });

  it.each([
    ['80-79', 'starts after it ends'],
    ['0-70000', 'must lie inside 0-65535'],
    ['http', 'is not <from>-<to>'],
  ])('refuses the port range %s', (range, message) => {
    expect(() => checkPortRange('port_range', range)).toThrow(message);
  });
});
